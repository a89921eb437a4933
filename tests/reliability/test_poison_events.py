"""A poison event (unknown type, corrupt JSON) parks its match; everything else goes on.

The projector folds the events before the poison, records the match, the failing version
and the error, stops retrying it on every sweep (only a longer stream or an explicit
``unpark`` retries it), shows it in GET /health (200, ``"degraded"``), and keeps
projecting every other match.
"""

from __future__ import annotations

import random
import time

import fakeredis
import pytest

from services.api.catch_up_requests import catch_up_queue, enqueue_catch_up
from services.projector import worker as worker_module
from services.projector.catchup.catching_up import fresh_views
from services.projector.catchup.projector_context import ProjectorContext
from services.projector.jobs import catch_up, unpark
from services.projector.rebuild.full_rebuild import Rebuild, RebuildOptions
from services.projector.worker import build_worker
from shared import keys
from shared.codec import encode
from shared.config import Config
from shared.eventstore import NewEvent, RedisEventStore
from shared.readmodels import ReadModels
from shared.readmodels.parked import ParkedMatches
from shared.rules import EVENT_TYPES
from tests.e2e.http import Reply
from tests.projector_support import append_in_batches, random_match
from tests.reliability.play import act, new_match, pick_action, register, view
from tests.reliability.stack import Stack

POISON_AT = 20  # the version of the poison in the fakeredis matches


@pytest.fixture
def store(fake_redis: fakeredis.FakeRedis) -> RedisEventStore:
    return RedisEventStore(fake_redis)


@pytest.fixture
def context(store: RedisEventStore, fake_redis: fakeredis.FakeRedis) -> ProjectorContext:
    return ProjectorContext(store, ReadModels(fake_redis))


def poisoned_match(store: RedisEventStore, match_id: str, renamed: str = "from_the_future") -> list:
    """A match whose event POISON_AT was recorded under a type this code does not know."""
    events = random_match(3, match_id)
    append_in_batches(store, match_id, events[:POISON_AT - 1], random.Random(3))
    poison = encode(events[POISON_AT - 1])
    store.append(match_id, [NewEvent(renamed, poison.data)], POISON_AT - 1)
    append_in_batches(store, match_id, events[POISON_AT:], random.Random(4), start=POISON_AT)
    return events


def corrupt_match(client: fakeredis.FakeRedis, store: RedisEventStore, match_id: str) -> None:
    """A match whose entry POISON_AT holds data that is not JSON (a foreign writer's)."""
    append_in_batches(store, match_id, random_match(4, match_id)[:POISON_AT - 1], random.Random(4))
    client.xadd(keys.match_events(match_id), {"t": "card_played", "s": 1, "at": 0, "d": b"{not json"},
                id=f"{POISON_AT}-0")
    client.set(keys.match_unprojected(match_id), POISON_AT)


def test_an_unknown_event_type_parks_the_match_with_the_events_before_it_projected(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, context: ProjectorContext,
) -> None:
    poisoned_match(store, "m1")
    assert catch_up("m1", context) == POISON_AT - 1
    record = ParkedMatches(fake_redis).get("m1")
    assert (record.match, record.version, record.stream_version) == ("m1", POISON_AT, store.version("m1"))
    assert "unknown event type 'from_the_future'" in record.error
    assert context.readmodels.projected_version("m1") == POISON_AT - 1
    assert list(store.unprojected()) == ["m1"]  # not all projected: the lag shows it


def test_corrupt_json_parks_the_match_at_the_unreadable_entry(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, context: ProjectorContext,
) -> None:
    corrupt_match(fake_redis, store, "m2")
    assert catch_up("m2", context) == POISON_AT - 1
    record = ParkedMatches(fake_redis).get("m2")
    assert record.version == POISON_AT and "CorruptEventError" in record.error


def test_the_sweep_leaves_a_parked_match_alone_until_its_stream_grows(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, context: ProjectorContext,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    corrupt_match(fake_redis, store, "m3")
    append_in_batches(store, "ok", random_match(5, "ok"), random.Random(5))
    caught_up: list[str] = []
    monkeypatch.setattr(worker_module, "catch_up", lambda match_id, ctx: caught_up.append(match_id) or catch_up(
        match_id, ctx))
    worker = build_worker(Config.from_env({"REDIS_URL": "redis://unused/0"}), connection=fake_redis, context=context)
    assert worker.sweep() == 1 and sorted(caught_up) == ["m3", "ok"]  # parked on its first try
    for _ in range(3):
        worker.sweep()
    assert sorted(caught_up) == ["m3", "ok"]  # never retried while nothing changes

    fake_redis.xadd(keys.match_events("m3"), {"t": "x", "s": 1, "at": 0, "d": b"{}"}, id=f"{POISON_AT + 1}-0")
    worker.sweep()
    assert caught_up.count("m3") == 2  # the stream grew: retried once, parked again
    assert ParkedMatches(fake_redis).get("m3").stream_version == POISON_AT + 1


def test_unpark_retries_at_once_and_forgets_a_match_that_now_folds(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, context: ProjectorContext,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    events = poisoned_match(store, "m4", renamed="card_played_v2")
    catch_up("m4", context)
    assert unpark("m4", context).version == POISON_AT  # still unreadable: parked again

    # A deploy teaches the codec the new name (as an upcaster would).
    monkeypatch.setitem(EVENT_TYPES, "card_played_v2", type(events[POISON_AT - 1]))
    assert unpark("m4", context) is None
    assert context.readmodels.projected_version("m4") == store.version("m4")
    assert context.readmodels.summary("m4") == fresh_views(store, "m4").summary


def test_a_rebuild_completes_around_a_parked_match(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, context: ProjectorContext,
) -> None:
    poisoned_match(store, "m5")
    append_in_batches(store, "ok", random_match(5, "ok"), random.Random(5))
    report = Rebuild(store, context.readmodels, None, RebuildOptions(grace_seconds=0)).run()
    assert report.generation == 1
    assert context.readmodels.projected_version("m5") == POISON_AT - 1
    assert context.readmodels.summary("ok") == fresh_views(store, "ok").summary
    assert ParkedMatches(fake_redis).get("m5").version == POISON_AT


def play_a_few(stack: Stack, match_id: str, seats: dict, actions: int) -> int:
    """Play ``actions`` random legal actions over HTTP; the version reached."""
    rng, version = random.Random(match_id), 3
    for _ in range(actions):
        # Projected at all is what counts here, not how fast: room for a loaded machine.
        views = {seat: view(stack.http, match_id, player.token, version, wait=20) for seat, player in seats.items()}
        picked = pick_action({s: v for s, v in views.items() if v["version"] == version}, rng)
        assert picked, f"no view reached version {version}: {({s: v['version'] for s, v in views.items()})}"
        seat, action = picked
        reply = act(stack.http, match_id, seats[seat], action, if_match=version)
        assert reply.status == 200, reply.body
        version = reply.body["version"]
    return version


def test_a_poisoned_match_is_parked_and_shown_in_health_while_other_matches_are_projected(
    shared_stack: Stack, figures: dict,
) -> None:
    stack, client = shared_stack, shared_stack.client()
    store, queue = RedisEventStore(client), catch_up_queue(client, "projector")
    seats = {"A": register(stack.http, "poison-a"), "B": register(stack.http, "poison-b")}
    poisoned, corrupt, healthy = (new_match(stack.http, seats["A"], seats["B"]) for _ in range(3))
    version = play_a_few(stack, poisoned, seats, 2)
    store.append(poisoned, [NewEvent("from_the_future", {"x": 1})], version)
    client.xadd(keys.match_events(corrupt), {"t": "card_played", "s": 1, "at": 0, "d": b"{not json"}, id="4-0")
    client.set(keys.match_unprojected(corrupt), 4)
    for match_id in (poisoned, corrupt):
        enqueue_catch_up(queue, match_id)  # a catch-up job for each
    try:
        health = wait_for_parked(stack, {poisoned, corrupt})
        assert health.status == 200 and health.body["status"] == "degraded" and health.body["redis"] is True
        shown = {entry["match"]: entry for entry in health.body["parked"]}
        assert shown[poisoned]["version"] == version + 1 and "from_the_future" in shown[poisoned]["error"]
        assert shown[corrupt]["version"] == 4 and "CorruptEventError" in shown[corrupt]["error"]
        assert view(stack.http, poisoned, None, version)["version"] == version  # the events before it
        reached = play_a_few(stack, healthy, seats, 6)  # every other match is still projected
        assert view(stack.http, healthy, None, reached, wait=10)["version"] == reached
    finally:
        for match_id in (poisoned, corrupt):  # leave the shared stack healthy
            client.delete(keys.match_events(match_id), keys.match_unprojected(match_id))
            ParkedMatches(client).remove(match_id)
    assert stack.http.get("/health").body["status"] == "ok"
    figures.update(poison_kinds=2, parked=len(shown), other_matches_projected=True)


def wait_for_parked(stack: Stack, match_ids: set[str], timeout: float = 10.0) -> Reply:
    """GET /health until it lists every one of ``match_ids`` as parked."""
    deadline = time.monotonic() + timeout
    while True:
        health = stack.http.get("/health")
        if match_ids <= {entry["match"] for entry in (health.body or {}).get("parked", [])}:
            return health
        assert time.monotonic() < deadline, health.body
        time.sleep(0.05)
