"""Every store appends through one port: ``append_events`` returns what a read would."""

from __future__ import annotations

import pytest

from shared.eventstore import (
    AppendToken,
    AppendTokens,
    EventStore,
    InMemoryEventStore,
    NewEvent,
    ProjectionMarks,
    RedisEventStore,
)


@pytest.fixture(params=["memory", "fakeredis"])
def store(request: pytest.FixtureRequest) -> EventStore:
    if request.param == "memory":
        return InMemoryEventStore()
    return RedisEventStore(request.getfixturevalue("fake_redis"))


def test_every_store_keeps_the_port_its_marks_and_its_tokens(store: EventStore) -> None:
    assert isinstance(store, EventStore)
    assert isinstance(store, ProjectionMarks)
    assert isinstance(store, AppendTokens)


def test_an_append_returns_its_events_exactly_as_a_read_does(store: EventStore) -> None:
    store.append("m1", [NewEvent("opened", {"n": 1})], 0)
    events = [NewEvent("played", {"cards": ("7H", "8H")}, 2), NewEvent("won", {"by": "A"})]
    appended = store.append_events("m1", events, 1, AppendToken("k", "f"))
    assert appended.version == 3 == store.version("m1")
    assert appended.events == store.read("m1", after=1)


def test_the_memory_store_asks_for_a_catch_up_after_every_append() -> None:
    store = InMemoryEventStore()
    assert store.append_events("m1", [NewEvent("opened", {})], 0).ask_catch_up
    assert store.append_events("m1", [NewEvent("opened", {})], 1).ask_catch_up
