"""A real catch-up over the in-memory ports gives what it gives over Redis.

The same matches appended to an in-memory event store and to one on fakeredis, each caught
up (``services.projector`` ``catch_up``, the job's own function) into the in-memory read
side and into Redis's: the views, lobby, scoreboard, feeds and clocks read back the same.
"""

from __future__ import annotations

import random
from typing import Any

import fakeredis
import pytest

from services.projector.catchup.projector_context import ProjectorContext
from services.projector.jobs import catch_up
from shared.eventstore import RedisEventStore
from shared.eventstore.memory import InMemoryEventStore
from shared.keys import LOBBY_STATUSES
from shared.readmodels import ReadModels
from shared.readmodels.memory_served import InMemoryReadModels
from shared.readmodels.player_feeds import START
from shared.readmodels.port import ReadSide
from tests.projector_support import ALICE_AND_BOB, append_in_batches, random_match

FIXED_AT = 1_767_225_600_000
MATCHES = [f"m{n}" for n in range(4)]
PLAYERS = ("p1", "p2")


def what_is_read(side: ReadSide) -> dict[str, Any]:
    """Everything the API reads of these matches and players, with the feeds' entry ids left out."""
    return {
        "views": {(match_id, audience): side.view(match_id, audience)
                  for match_id in MATCHES for audience in ("A", "B", "spectator")},
        "summaries": {match_id: side.summary(match_id) for match_id in MATCHES},
        "versions": {match_id: side.projected_version(match_id) for match_id in MATCHES},
        "lobby": {status: side.lobby(status) for status in LOBBY_STATUSES},
        "players": {(player, status): side.player_matches(player, status)
                    for player in PLAYERS for status in LOBBY_STATUSES},
        "scoreboard": side.scoreboard(),
        "rows": {player: side.player_row(player) for player in PLAYERS},
        "feeds": {player: [(notice.kind, notice.data) for notice in side.feeds.after(player, START)]
                  for player in PLAYERS},
        "clocks": (side.clocks.running(), side.clocks.next_deadline(), side.clocks.due(2**62)),
    }


@pytest.mark.parametrize("seed", range(4))
def test_a_catch_up_over_the_in_memory_stores_reads_as_one_over_redis(seed: int) -> None:
    client = fakeredis.FakeRedis(server=fakeredis.FakeServer())
    memory_store = InMemoryEventStore(clock=lambda: FIXED_AT)
    on_redis = ProjectorContext(RedisEventStore(client, clock=lambda: FIXED_AT), ReadModels(client))
    in_memory = ProjectorContext(memory_store, InMemoryReadModels(marks=memory_store))
    rng = random.Random(seed)
    for n, match_id in enumerate(MATCHES):
        events = random_match(seed * 10 + n, match_id, ALICE_AND_BOB)
        cut = rng.randint(1, len(events)) if n % 2 else len(events)  # some finished, some playing
        batches = rng.randint(0, 2**31)
        for context in (on_redis, in_memory):
            append_in_batches(context.store, match_id, events[:cut], random.Random(batches))
            assert catch_up(match_id, context) == cut
    assert what_is_read(in_memory.readmodels) == what_is_read(on_redis.readmodels)
    assert list(memory_store.unprojected()) == [] == list(on_redis.store.unprojected())
    assert in_memory.readmodels.lag(memory_store) == 0
    assert what_is_read(in_memory.readmodels)["scoreboard"]["version"] >= 2  # the finished ones counted


def test_a_catch_up_in_memory_catches_up_only_what_is_new() -> None:
    store = InMemoryEventStore(clock=lambda: FIXED_AT)
    context = ProjectorContext(store, InMemoryReadModels(marks=store))
    events = random_match(3, "m1", ALICE_AND_BOB)
    append_in_batches(store, "m1", events[:5], random.Random(3))
    assert catch_up("m1", context) == 5 and context.readmodels.projected_version("m1") == 5
    append_in_batches(store, "m1", events, random.Random(4), start=5)
    assert catch_up("m1", context) == len(events) and context.readmodels.projected_version("m1") == len(events)
    assert catch_up("m1", context) == len(events) and list(store.unprojected()) == []


def test_while_a_generation_is_built_a_catch_up_in_memory_writes_it_too() -> None:
    store = InMemoryEventStore(clock=lambda: FIXED_AT)
    readmodels = InMemoryReadModels(marks=store)
    context = ProjectorContext(store, readmodels)
    append_in_batches(store, "m1", random_match(5, "m1", ALICE_AND_BOB)[:6], random.Random(5))
    readmodels.build(1)
    assert catch_up("m1", context) == 6
    assert readmodels.at(1).view("m1", "A") == readmodels.view("m1", "A") is not None
    readmodels.switch_to(1)
    assert readmodels.pointer().generation == 1 and readmodels.projected_version("m1") == 6
