"""An append asks for a catch-up only when no queued catch-up is still to read the stream."""

from __future__ import annotations

import pytest

from services.api.app import Matches, act, create, join
from services.api.players import Player
from shared import keys
from shared.catch_up_lanes import LaneRequests
from shared.eventstore import NewEvent, RedisEventStore
from shared.eventstore.alongside import Alongside
from shared.eventstore.redis_store import CATCH_UP_FLAG_MS
from shared.rules import Rules
from shared.seeds import InMemorySeeds

EVENT = NewEvent("something_happened", {"n": 1})


@pytest.fixture(params=["fakeredis", pytest.param("redis", marks=pytest.mark.integration)])
def store(request: pytest.FixtureRequest) -> RedisEventStore:
    return RedisEventStore(request.getfixturevalue("fake_redis" if request.param == "fakeredis" else "redis_client"))


def test_only_the_first_append_since_the_last_read_asks_for_a_catch_up(store: RedisEventStore) -> None:
    assert store.append_events("m1", [EVENT], 0).ask_catch_up
    assert not store.append_events("m1", [EVENT], 1).ask_catch_up  # the catch-up asked for will fold it
    store.read("m1", after=1)  # what that catch-up does first
    assert store.append_events("m1", [EVENT], 2).ask_catch_up
    assert store.append_events("m2", [EVENT], 0).ask_catch_up  # per match


def test_a_request_nobody_picks_up_lapses(store: RedisEventStore) -> None:
    store.append_events("m1", [EVENT], 0)
    assert 0 < store._client.pttl(keys.match_catch_up("m1")) <= CATCH_UP_FLAG_MS


def test_an_append_returns_its_events_exactly_as_a_read_does(store: RedisEventStore) -> None:
    store.append("m1", [EVENT], 0)
    appended = store.append_events("m1", [EVENT, NewEvent("other", {"cards": ("7H", "8H")}, 2)], 1)
    assert appended.version == 3
    assert appended.events == store.read("m1", after=1)


def test_the_match_service_asks_only_when_the_store_says_so(fake_redis) -> None:
    notified: list[str] = []
    store = RedisEventStore(fake_redis)
    service = Matches(store, notified.append, InMemorySeeds())
    alice, bob = Player("alice-id", "alice"), Player("bob-id", "bob")
    match_id = create(service, alice, {"rules": Rules(), "first_dealer": None}).match_id
    joined = join(service, match_id, bob)  # decided on the cached match: no read, the create's catch-up folds it
    assert notified == [match_id]
    on_turn = alice if joined.state.round.turn.value == "A" else bob
    act(service, match_id, on_turn, {"type": "raise"})  # no catch-up has read since the create
    assert notified == [match_id]
    store.read(match_id, after=joined.version)
    other = bob if on_turn is alice else alice
    act(service, match_id, other, {"type": "accept"})
    assert notified == [match_id] * 2


def test_a_join_in_a_process_that_has_not_folded_the_match_reads_it_and_asks_again(fake_redis) -> None:
    notified: list[str] = []
    store, seeds = RedisEventStore(fake_redis), InMemorySeeds()
    match_id = create(Matches(store, notified.append, seeds), Player("alice-id", "alice"),
                      {"rules": Rules(), "first_dealer": None}).match_id
    join(Matches(store, notified.append, seeds), match_id, Player("bob-id", "bob"))
    assert notified == [match_id, match_id]


def test_a_read_can_carry_more_commands_sent_after_it(store: RedisEventStore) -> None:
    store.append("m1", [EVENT, EVENT, EVENT], 0)
    store.client.set("other", "x")
    events, replies = store.read_then("m1", after=1, limit=5, then=lambda pipe: pipe.get("other").get("none"))
    assert (events, replies) == (store.read("m1", after=1), [b"x", None])
    assert store.append_events("m1", [EVENT], 3).ask_catch_up  # it cleared the flag, as a read does
    assert store.read_then("m1", after=0, limit=0, then=lambda pipe: pipe.get("other")) == ([], [b"x"])
    assert not store.append_events("m1", [EVENT], 4).ask_catch_up  # reading nothing clears nothing


def test_a_request_riding_an_append_files_the_match_only_if_that_append_asked(fake_redis) -> None:
    queued: list[int] = []
    lanes = LaneRequests(fake_redis, "projector", lambda: 1, queued.append, count=1)
    store = RedisEventStore(fake_redis)
    pending = keys.lane_pending("projector", 0)
    lanes.request("m0")  # as any earlier request: the script loaded (else NOSCRIPT: nothing filed)
    fake_redis.delete(pending, keys.lane_armed("projector", 0))
    queued.clear()

    def append_with_request(version: int) -> tuple[bool, bool]:
        command, filed = lanes.riding_request("m1", version + 1)
        appended = store.append_events("m1", [EVENT], version, alongside=Alongside((), (command,)))
        return appended.ask_catch_up, filed(appended.read_alongside[-1])

    assert append_with_request(0) == (True, True)  # asked: filed, and the lane armed with its drain queued
    assert fake_redis.sismember(pending, "m1") and queued == [0]
    fake_redis.delete(pending)
    assert append_with_request(1) == (False, False)  # a catch-up is asked for already: nothing filed
    assert not fake_redis.sismember(pending, "m1")
    store.read("m1")
    assert append_with_request(2) == (True, True)  # asked again: filed, the armed lane woken, no second job
    assert fake_redis.sismember(pending, "m1") and queued == [0]
