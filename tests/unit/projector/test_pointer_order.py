"""A catch-up reads the generation pointer after the events it folds, in the round trip of their last read.

``publish_live`` relies on that order: a rebuild that starts after the pointer was read
enqueues its jobs later, and they fold these events themselves. Read before the events,
the pointer could miss a rebuild whose jobs had already folded the match without them.
"""

from __future__ import annotations

from typing import Any

import fakeredis
import pytest

from services.projector.catchup.projector_context import ProjectorContext
from services.projector.jobs import catch_up
from services.projector.rebuild.lock_and_switch import lock_rebuild, start_building
from shared import keys
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels
from tests.projector_support import store_matches


class RoundTrips:
    """Every round trip the spied clients make, as its commands' (name, first key) in order."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *clients: Any) -> None:
        self.trips: list[list[tuple[str, str]]] = []
        for client in clients:
            self._spy(monkeypatch, client)

    def _spy(self, monkeypatch: pytest.MonkeyPatch, client: Any) -> None:
        make_pipeline, execute_command = client.pipeline, client.execute_command

        def pipeline(*args: Any, **options: Any) -> Any:
            pipe = make_pipeline(*args, **options)
            execute = pipe.execute

            def spied_execute(*args: Any, **options: Any) -> Any:
                self.trips.append([_named(command) for command, _ in pipe.command_stack])
                return execute(*args, **options)

            pipe.execute = spied_execute
            return pipe

        def spied_command(*args: Any, **options: Any) -> Any:
            self.trips.append([_named(args)])
            return execute_command(*args, **options)

        monkeypatch.setattr(client, "pipeline", pipeline)
        monkeypatch.setattr(client, "execute_command", spied_command)

    def last(self, command: tuple[str, str]) -> tuple[int, int]:
        """(round trip, position over every command sent) of the last ``command``."""
        sent = [(trip, name) for trip, names in enumerate(self.trips) for name in names]
        return max((trip, position) for position, (trip, name) in enumerate(sent) if name == command)


def _named(command: tuple[Any, ...]) -> tuple[str, str]:
    name, key = command[0], command[1] if len(command) > 1 else ""
    return str(name).upper(), key.decode() if isinstance(key, bytes) else str(key)


def _stored(store: RedisEventStore) -> int:
    """Random matches m0 and m1 stored: m1's version (its catch-ups are the ones logged)."""
    store_matches(store, 2)
    return store.version("m1")


EVENTS_READ, POINTER_READ = ("XRANGE", keys.match_events("m1")), ("HMGET", keys.READ_MODELS)


@pytest.mark.parametrize("page_size", [500, 7])
def test_the_pointer_is_read_after_the_last_events_in_their_round_trip(
    monkeypatch: pytest.MonkeyPatch, fake_redis: fakeredis.FakeRedis, store: RedisEventStore,
    readmodels: ReadModels, page_size: int,
) -> None:
    version = _stored(store)
    assert version > 7  # more than one page of 7
    trips = RoundTrips(monkeypatch, fake_redis)
    assert catch_up("m1", ProjectorContext(store, readmodels, page_size=page_size)) == version
    events_trip, events_at = trips.last(EVENTS_READ)
    pointer_trip, pointer_at = trips.last(POINTER_READ)
    assert pointer_at > events_at  # after the events were read...
    assert pointer_trip == events_trip  # ...and no round trip of its own


def test_a_rebuild_started_between_two_pages_is_written_to(
    monkeypatch: pytest.MonkeyPatch, fake_redis: fakeredis.FakeRedis, store: RedisEventStore,
    readmodels: ReadModels,
) -> None:
    version = _stored(store)
    read_then, pages = store.read_then, []

    def rebuild_after_the_first_page(*args: Any, **options: Any) -> Any:
        pages.append(read_then(*args, **options))
        if len(pages) == 1:  # its pointer said: no rebuild; the next page's says one runs
            lock_rebuild(fake_redis, "me")
            start_building(fake_redis, 1, "me")
        return pages[-1]

    monkeypatch.setattr(store, "read_then", rebuild_after_the_first_page)
    assert catch_up("m1", ProjectorContext(store, readmodels, page_size=7)) == version
    assert len(pages) > 1
    assert readmodels.at(1).projected_version("m1") == version
    assert readmodels.at(0).projected_version("m1") == version


def test_read_models_on_another_client_read_the_pointer_after_the_events(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = fakeredis.FakeServer()
    events_client, views_client = fakeredis.FakeRedis(server=server), fakeredis.FakeRedis(server=server)
    store = RedisEventStore(events_client)
    version = _stored(store)
    trips = RoundTrips(monkeypatch, events_client, views_client)
    assert catch_up("m1", ProjectorContext(store, ReadModels(views_client))) == version
    assert trips.last(POINTER_READ)[1] > trips.last(EVENTS_READ)[1]
    assert ReadModels(events_client).projected_version("m1") == version
