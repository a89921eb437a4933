"""One contract, every Redis the abuse limits count on: fakeredis, a real redis-server, and a
Redis Cluster of three masters (one key per script, so any node serves it).

A limit lets a subject hold ``count`` units at once; a unit lapses ``hold_ms`` after it is
taken (or renewed) unless given back sooner.
"""
from __future__ import annotations

import threading

import pytest

from shared import keys
from shared.limits import Counters, Limit

START = 1_700_000_000_000
THREE_A_SECOND = Limit("actions", 3, 1000)


class FakeClock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> int:
        return self.now


@pytest.fixture(
    params=[
        pytest.param("fakeredis", marks=pytest.mark.unit),
        pytest.param("redis", marks=pytest.mark.integration),
        pytest.param("cluster", marks=pytest.mark.integration),
    ]
)
def client(request: pytest.FixtureRequest):
    return request.getfixturevalue({"fakeredis": "fake_redis", "redis": "redis_client",
                                    "cluster": "redis_cluster_client"}[request.param])


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def counters(client, clock: FakeClock) -> Counters:
    return Counters(client, clock)


def test_a_subject_holds_count_units_then_is_refused_until_the_oldest_lapses(counters, clock) -> None:
    taken = []
    for at in (0, 400, 900):
        clock.now = START + at
        taken.append(counters.take(THREE_A_SECOND, "p1"))
    assert [verdict.allowed for verdict in taken] == [True] * 3
    assert [verdict.remaining for verdict in taken] == [2, 1, 0]
    refused = counters.take(THREE_A_SECOND, "p1")
    assert not refused.allowed and refused.remaining == 0
    assert refused.reset_ms == 100 and refused.reset_seconds == 1  # the first unit lapses at START + 1000
    clock.now = START + 1000
    assert counters.take(THREE_A_SECOND, "p1").allowed
    assert not counters.take(THREE_A_SECOND, "p1").allowed  # at most 3 in any second: a sliding log


def test_a_take_that_read_the_clock_before_a_concurrent_one_is_told_at_most_the_hold(counters, clock) -> None:
    """Requests read the clock, then run their script: the later script may carry the earlier time."""
    per_hour = Limit("registrations", 1, 3_600_000)
    clock.now = START + 5
    assert counters.take(per_hour, "203.0.113.9").allowed
    clock.now = START  # read before the take above, run after it
    refused = counters.take(per_hour, "203.0.113.9")
    assert not refused.allowed
    assert refused.reset_ms == 3_600_000 and refused.reset_seconds == 3600  # never past the hour itself


def test_a_refused_take_holds_nothing(counters, clock) -> None:
    for _ in range(3):
        counters.take(THREE_A_SECOND, "p1")
    for _ in range(5):
        assert not counters.take(THREE_A_SECOND, "p1").allowed
    clock.now = START + 1000
    assert [counters.take(THREE_A_SECOND, "p1").allowed for _ in range(4)] == [True, True, True, False]


def test_a_unit_given_back_frees_its_place_at_once_and_only_once(counters) -> None:
    first = counters.take(THREE_A_SECOND, "p1")
    counters.take(THREE_A_SECOND, "p1"), counters.take(THREE_A_SECOND, "p1")
    counters.give_back(THREE_A_SECOND, "p1", first.unit)
    counters.give_back(THREE_A_SECOND, "p1", first.unit)
    counters.give_back(THREE_A_SECOND, "p1", "never-taken")
    assert counters.take(THREE_A_SECOND, "p1").allowed
    assert not counters.take(THREE_A_SECOND, "p1").allowed


def test_a_unit_named_by_its_holder_is_given_back_by_that_name(counters) -> None:
    waiting = Limit("waiting_matches", 1, 3_600_000)
    assert counters.take(waiting, "p1", "match-1").allowed
    assert not counters.take(waiting, "p1", "match-2").allowed
    counters.give_back(waiting, "p1", "match-1")
    assert counters.take(waiting, "p1", "match-2").allowed


def test_a_renewed_unit_outlives_its_hold_and_an_abandoned_one_lapses(counters, clock) -> None:
    lease = Limit("streams", 2, 60_000)
    kept, abandoned = counters.take(lease, "10.0.0.1"), counters.take(lease, "10.0.0.1")
    for _ in range(3):
        clock.now += 40_000
        counters.renew(kept)
    assert counters.take(lease, "10.0.0.1").allowed  # the abandoned one lapsed ...
    assert not counters.take(lease, "10.0.0.1").allowed  # ... the kept one still counts
    counters.give_back(lease, "10.0.0.1", kept.unit)
    assert counters.take(lease, "10.0.0.1").allowed
    assert abandoned.unit != kept.unit


def test_subjects_and_limits_count_apart(counters) -> None:
    other = Limit("matches", 3, 1000)
    for _ in range(3):
        counters.take(THREE_A_SECOND, "p1")
    assert counters.take(THREE_A_SECOND, "p2").allowed
    assert counters.take(other, "p1").allowed
    assert counters.take(THREE_A_SECOND, "2001:db8::/64").allowed  # an IPv6 subject is a subject like any


def test_a_count_of_zero_limits_nothing_and_writes_nothing(counters, client) -> None:
    unlimited = Limit("actions", 0, 1000)
    assert all(counters.take(unlimited, "p1").allowed for _ in range(50))
    assert client.exists(keys.limit("actions", "p1")) == 0


def test_the_units_key_expires_with_its_last_unit(counters, client, clock) -> None:
    hour = Limit("registrations", 10, 3_600_000)
    counters.take(hour, "10.0.0.1")
    clock.now += 1_000_000
    counters.take(hour, "10.0.0.1")
    assert 3_500_000 < client.pttl(keys.limit("registrations", "10.0.0.1")) <= 3_600_000


def test_racing_takers_never_hold_more_than_the_count(counters) -> None:
    limit, allowed, lock = Limit("registrations", 5, 60_000), [], threading.Lock()

    def take() -> None:
        verdict = counters.take(limit, "10.0.0.1")
        with lock:
            allowed.append(verdict.allowed)

    threads = [threading.Thread(target=take) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert allowed.count(True) == 5
