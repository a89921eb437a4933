"""One contract, every event store: in memory, Redis on fakeredis, a real redis-server, and a
Redis Cluster of three masters (every key of a match in one slot, every script on one node).

A store that passes this suite can replace another under the command API and
the projector without either noticing.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable

import pytest

from shared import keys
from shared.eventstore import (
    AppendToken,
    ConcurrencyError,
    DuplicateAppendError,
    EventStore,
    InMemoryEventStore,
    NewEvent,
    RedisEventStore,
    TokenRecord,
)
from shared.eventstore.append_tokens import REFUSALS_KEPT, REFUSALS_KEPT_SECONDS
from shared.eventstore.chain import chain_hash, genesis_hash
from shared.eventstore.port import encode_data


class FakeClock:
    """An injectable clock that only moves when the test says so."""

    def __init__(self, now: int = 1_700_000_000_000) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


StoreFactory = Callable[[], EventStore]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(
    params=[
        pytest.param("memory", marks=pytest.mark.unit),
        pytest.param("fakeredis", marks=pytest.mark.unit),
        pytest.param("redis", marks=pytest.mark.integration),
        pytest.param("cluster", marks=pytest.mark.integration),
    ]
)
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def store(backend: str, clock: FakeClock, request: pytest.FixtureRequest) -> EventStore:
    if backend == "memory":
        return InMemoryEventStore(clock=clock)
    # Fetched lazily so that memory-only runs never start a redis-server.
    client_fixture = {"fakeredis": "fake_redis", "redis": "redis_client", "cluster": "redis_cluster_client"}[backend]
    return RedisEventStore(request.getfixturevalue(client_fixture), clock=clock)


def e(type_: str = "Happened", **data: object) -> NewEvent:
    return NewEvent(type_, data)


def test_the_store_satisfies_the_protocol(store: EventStore) -> None:
    assert isinstance(store, EventStore)


def test_appended_events_read_back_identically_including_unicode(store: EventStore) -> None:
    data = {"player": "Zoé 🂡", "cards": ["1♠", "7♦"], "nested": {"n": 3, "ok": True, "x": None}}
    store.append("m1", [NewEvent("CardsDealt", data, schema_version=2), e("Opened")], 0)

    first, second = store.read("m1")

    assert (first.match_id, first.version, first.type, first.schema_version) == (
        "m1", 1, "CardsDealt", 2,
    )
    assert first.data == data
    assert (second.version, second.type, second.schema_version, second.data) == (
        2, "Opened", 1, {},
    )


def test_versions_start_at_one_and_have_no_gaps(store: EventStore) -> None:
    assert store.version("m1") == 0
    assert store.append("m1", [e(n=1)], 0) == 1
    assert store.append("m1", [e(n=2), e(n=3), e(n=4)], 1) == 4
    assert store.append("m1", [e(n=5)], 4) == 5

    events = store.read("m1")

    assert [ev.version for ev in events] == [1, 2, 3, 4, 5]
    assert [ev.data["n"] for ev in events] == [1, 2, 3, 4, 5]
    assert store.version("m1") == 5


def test_read_returns_the_events_after_a_version_up_to_a_limit(store: EventStore) -> None:
    store.append("m1", [e(n=n) for n in range(1, 11)], 0)

    assert [ev.version for ev in store.read("m1", after=7)] == [8, 9, 10]
    assert [ev.version for ev in store.read("m1", after=2, limit=3)] == [3, 4, 5]
    assert [ev.version for ev in store.read("m1", limit=2)] == [1, 2]
    assert store.read("m1", after=10) == []
    assert store.read("m1", after=99) == []
    assert store.read("m1", limit=0) == []
    assert store.read("unknown") == []


def test_a_wrong_expected_version_is_refused_and_records_nothing(store: EventStore) -> None:
    store.append("m1", [e(n=1), e(n=2)], 0)

    for stale in (0, 1, 3):
        with pytest.raises(ConcurrencyError) as refused:
            store.append("m1", [e(n=99)], stale)
        assert (refused.value.expected, refused.value.actual) == (stale, 2)

    assert store.version("m1") == 2
    assert [ev.data["n"] for ev in store.read("m1")] == [1, 2]


def test_an_empty_append_is_refused(store: EventStore) -> None:
    with pytest.raises(ValueError):
        store.append("m1", [], 0)
    assert store.version("m1") == 0
    assert list(store.unprojected()) == []


@pytest.mark.parametrize("bad_id", ["", "a:b", "{m:x}", "a}b", "a b", "é", "x" * 65])
def test_match_ids_that_could_break_a_key_are_refused(store: EventStore, bad_id: str) -> None:
    with pytest.raises(ValueError):
        store.append(bad_id, [e()], 0)


def test_streams_are_isolated_per_match(store: EventStore) -> None:
    store.append("m1", [e(match=1)], 0)
    store.append("m2", [e(match=2), e(match=2)], 0)

    assert store.version("m1") == 1
    assert store.version("m2") == 2
    assert [ev.data for ev in store.read("m1")] == [{"match": 1}]
    assert {ev.match_id for ev in store.read("m2")} == {"m2"}
    with pytest.raises(ConcurrencyError):
        store.append("m1", [e()], 2)


def test_an_append_marks_the_match_unprojected(store: EventStore) -> None:
    assert list(store.unprojected()) == []
    store.append("m1", [e()], 0)
    store.append("m2", [e()], 0)

    assert sorted(store.unprojected()) == ["m1", "m2"]


def test_the_mark_is_cleared_only_once_the_projector_has_caught_up(store: EventStore) -> None:
    store.append("m1", [e(), e()], 0)
    store.append("m1", [e()], 2)  # appended while a projector was folding up to 2

    assert store.mark_projected("m1", 2) is False
    assert list(store.unprojected()) == ["m1"]

    assert store.mark_projected("m1", 3) is True
    assert list(store.unprojected()) == []
    assert store.mark_projected("m1", 3) is True  # idempotent: nothing left to clear


def test_a_new_append_after_projection_marks_the_match_again(store: EventStore) -> None:
    store.append("m1", [e()], 0)
    store.mark_projected("m1", 1)
    store.append("m1", [e()], 1)

    assert list(store.unprojected()) == ["m1"]


def test_match_ids_lists_every_match_with_events(store: EventStore) -> None:
    assert list(store.match_ids()) == []
    for match_id in ("m1", "m2", "another-match_3"):
        store.append(match_id, [e()], 0)
    store.mark_projected("m1", 1)  # projection does not hide a match

    assert sorted(store.match_ids()) == ["another-match_3", "m1", "m2"]


def test_timestamps_come_from_the_injected_clock(store: EventStore, clock: FakeClock) -> None:
    store.append("m1", [e(), e()], 0)
    clock.now += 1234
    store.append("m1", [e()], 2)

    assert [ev.at for ev in store.read("m1")] == [
        1_700_000_000_000, 1_700_000_000_000, 1_700_000_001_234,
    ]


def test_read_events_cannot_alias_the_stored_ones(store: EventStore) -> None:
    data = {"cards": ["1♠"]}
    store.append("m1", [NewEvent("Dealt", data)], 0)
    data["cards"].append("2♠")
    store.read("m1")[0].data["cards"].append("3♠")

    assert store.read("m1")[0].data == {"cards": ["1♠"]}


def test_racing_writers_with_the_same_expected_version_let_exactly_one_win(
    store: EventStore,
) -> None:
    racers = 8
    start = threading.Barrier(racers)
    outcomes: list[str] = []

    def race(writer: int) -> None:
        start.wait()
        try:
            store.append("m1", [e(writer=writer)], 0)
            outcomes.append("won")
        except ConcurrencyError:
            outcomes.append("lost")

    _run_threads(race, racers)

    assert Counter(outcomes) == {"won": 1, "lost": racers - 1}
    assert store.version("m1") == 1


def test_concurrent_writers_retrying_leave_a_gapless_stream_without_duplicates(
    store: EventStore,
) -> None:
    writers, per_writer = 6, 25
    start = threading.Barrier(writers)
    won_versions: list[int] = []
    conflicts: list[int] = []

    def write(writer: int) -> None:
        start.wait()
        for seq in range(per_writer):
            while True:  # the command API's retry loop, in miniature
                current = store.version("m1")
                time.sleep(0)  # let another writer in between the read and the append
                try:
                    won_versions.append(store.append("m1", [e(writer=writer, seq=seq)], current))
                    break
                except ConcurrencyError:
                    conflicts.append(current)

    _run_threads(write, writers)

    events = store.read("m1")
    total = writers * per_writer
    assert [ev.version for ev in events] == list(range(1, total + 1))
    assert sorted(won_versions) == list(range(1, total + 1))  # one winner per version
    written = Counter((ev.data["writer"], ev.data["seq"]) for ev in events)
    assert set(written.values()) == {1}
    assert len(written) == total
    assert conflicts, "the writers never actually raced"


def _run_threads(target: Callable[[int], None], count: int) -> None:
    errors: list[BaseException] = []

    def guarded(index: int) -> None:
        try:
            target(index)
        except BaseException as error:  # surface thread failures in the test
            errors.append(error)

    threads = [threading.Thread(target=guarded, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in threads), "a writer hung"
    assert errors == []


def test_an_append_token_makes_a_retry_record_nothing(store: EventStore) -> None:
    store.append("m1", [e("Created")], 0)
    token = AppendToken("client-1:key-1", "body-hash")

    assert store.append("m1", [e("A"), e("B")], 1, token) == 3
    with pytest.raises(DuplicateAppendError) as duplicate:
        store.append("m1", [e("A"), e("B")], 3, token)

    assert duplicate.value.record == TokenRecord("body-hash", 2, 3)
    assert store.token("m1", "client-1:key-1") == TokenRecord("body-hash", 2, 3)
    assert store.version("m1") == 3


def test_a_used_token_wins_over_a_stale_expected_version(store: EventStore) -> None:
    token = AppendToken("k", "f")
    store.append("m1", [e()], 0, token)
    with pytest.raises(DuplicateAppendError):
        store.append("m1", [e()], 0, token)  # a retry that read the old version


def test_tokens_are_per_match_and_unknown_tokens_read_as_none(store: EventStore) -> None:
    store.append("m1", [e()], 0, AppendToken("k", "f"))
    assert store.append("m2", [e()], 0, AppendToken("k", "g")) == 1
    assert store.token("m1", "other") is None
    assert store.token("m2", "k") == TokenRecord("g", 1, 1)


def test_a_refused_append_does_not_use_its_token(store: EventStore) -> None:
    store.append("m1", [e()], 0)
    with pytest.raises(ConcurrencyError):
        store.append("m1", [e()], 0, AppendToken("k", "f"))
    assert store.token("m1", "k") is None
    assert store.append("m1", [e()], 1, AppendToken("k", "f")) == 2


def test_a_refusal_can_claim_a_token_once(store: EventStore) -> None:
    store.append("m1", [e()], 0)
    token = AppendToken("k", "f")

    assert store.remember_refusal("m1", token, '{"error": "NOT_YOUR_TURN"}') is None
    again = store.remember_refusal("m1", token, '{"error": "OTHER"}')

    assert again == TokenRecord("f", 0, 0, '{"error": "NOT_YOUR_TURN"}')
    assert store.token("m1", "k") == again
    with pytest.raises(DuplicateAppendError) as duplicate:
        store.append("m1", [e()], 1, token)
    assert duplicate.value.record.refusal == '{"error": "NOT_YOUR_TURN"}'
    assert store.version("m1") == 1


def test_the_marked_matches_are_counted_and_listed_without_a_scan(store: EventStore) -> None:
    assert store.unprojected_count() == 0
    store.append("m1", [e()], 0)
    store.append("m2", [e(), e()], 0)
    store.append("m1", [e()], 1)
    assert store.unprojected_count() == 2 and sorted(store.unprojected_listed()) == ["m1", "m2"]
    assert not store.mark_projected("m1", 1)  # a newer append's mark survives
    assert store.unprojected_count() == 2
    assert store.mark_projected("m1", 2) and store.mark_projected("m2", 2)
    assert store.unprojected_count() == 0 and list(store.unprojected_listed()) == []
    store.import_events("m3", store.read("m2"))
    assert list(store.unprojected_listed()) == ["m3"]


def test_a_match_keeps_a_bounded_number_of_refusals(store: EventStore) -> None:
    store.append("m1", [e()], 0)
    for n in range(REFUSALS_KEPT + 20):
        store.remember_refusal("m1", AppendToken(f"k{n}", "f"), '{"error": "NOT_YOUR_TURN"}')
    kept = [n for n in range(REFUSALS_KEPT + 20) if store.token("m1", f"k{n}") is not None]
    assert kept == list(range(REFUSALS_KEPT))
    assert store.append("m1", [e()], 1, AppendToken("k-after", "f")) == 2  # appends are never capped
    assert store.token("m1", "k-after") == TokenRecord("f", 2, 2)


def test_every_event_links_to_the_previous_one_in_a_hash_chain(store: EventStore) -> None:
    store.append("m1", [e("A", n=1), e("B", n=2)], 0)
    store.append("m1", [e("C", n=3)], 2)
    store.append("m2", [e("A", n=1)], 0)

    events = store.read("m1")

    previous = genesis_hash("m1")
    for stored in events:
        assert stored.hash == chain_hash(
            previous, stored.version, stored.type, stored.schema_version, stored.at, encode_data(stored.data),
        )
        previous = stored.hash
    assert len({stored.hash for stored in events}) == 3
    assert store.read("m2")[0].hash != events[0].hash  # the same event, but in another match


@pytest.mark.parametrize("client_fixture", ["fake_redis", pytest.param("redis_client", marks=pytest.mark.integration)])
def test_remembered_refusals_expire_but_appended_tokens_do_not(client_fixture: str, request) -> None:
    client = request.getfixturevalue(client_fixture)
    store = RedisEventStore(client)
    store.append("m1", [e()], 0, AppendToken("appended", "f"))
    store.remember_refusal("m1", AppendToken("refused", "f"), '{"error": "NOT_YOUR_TURN"}')
    assert 0 < client.ttl(keys.match_refusals("m1")) <= REFUSALS_KEPT_SECONDS
    assert client.ttl(keys.match_tokens("m1")) == -1


@pytest.mark.parametrize("client_fixture", ["fake_redis", pytest.param("redis_client", marks=pytest.mark.integration)])
def test_the_chain_continues_across_redis_store_instances(client_fixture: str, request) -> None:
    client = request.getfixturevalue(client_fixture)
    RedisEventStore(client).append("m1", [e("A")], 0)
    RedisEventStore(client).append("m1", [e("B")], 1)
    first, second = RedisEventStore(client).read("m1")
    assert second.hash == chain_hash(first.hash, 2, "B", 1, second.at, encode_data(second.data))


def test_an_exported_match_imports_verbatim_into_an_empty_stream_only(store: EventStore) -> None:
    source = InMemoryEventStore()
    source.append("m1", [e("A", n=1), e("B", n=2)], 0)
    source.append("m1", [e("C", n=3)], 2)
    exported = source.read("m1")

    assert store.import_events("m1", exported) == 3

    assert store.read("m1") == exported
    assert "m1" in set(store.unprojected())
    store.append("m1", [e("D")], 3)
    assert store.read("m1")[-1].hash == chain_hash(exported[-1].hash, 4, "D", 1, store.read("m1")[-1].at,
                                                    encode_data({}))
    with pytest.raises(ConcurrencyError):
        store.import_events("m1", exported)
    with pytest.raises(ValueError):
        store.import_events("m2", exported[1:])
