"""The seek pool: pools by terms, one open seek a player, a window that widens, no seek paired twice."""
from __future__ import annotations

import threading

import fakeredis
import pytest

from services.api.seek_pool import Expired, SeekPool, pool_of
from shared.rules import Rules


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000

    def __call__(self) -> int:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def pool(fake_redis: fakeredis.FakeRedis, clock: Clock) -> SeekPool:
    return SeekPool(fake_redis, clock)


def test_rated_and_unrated_seeks_never_share_a_pool_nor_do_other_rules() -> None:
    assert pool_of(True, Rules()) != pool_of(False, Rules())
    assert pool_of(True, Rules()) != pool_of(True, Rules(turn_seconds=30))
    assert pool_of(True, Rules()) == pool_of(True, Rules.from_mapping({}))


def test_a_player_has_one_open_seek(pool: SeekPool) -> None:
    first = pool.open("ana", True, Rules(), 1500, 120)
    assert pool.open("ana", False, Rules(), 1500, 120) == first.id
    assert pool.withdraw("ana", first.id) and not pool.withdraw("ana", first.id)
    assert pool.open("ana", False, Rules(), 1500, 120) != first.id


def test_only_the_seeker_withdraws_a_seek(pool: SeekPool) -> None:
    seek = pool.open("ana", True, Rules(), 1500, 120)
    assert not pool.withdraw("ben", seek.id) and pool.open_count() == 1


def test_close_ratings_pair_at_once_and_distant_ones_once_the_window_widens(pool: SeekPool, clock: Clock) -> None:
    pool.open("ana", True, Rules(), 1500, 120)
    pool.open("far", True, Rules(), 2100, 120)
    assert pool.pair().made == []
    clock.now += 5_000  # windows of 200: still too far apart
    assert pool.pair().made == []
    pool.open("ben", True, Rules(), 1550, 120)
    (made,) = pool.pair().made
    assert {made.a["player"], made.b["player"]} == {"ana", "ben"} and made.a["player"] == "ana"  # older in A
    clock.now += 30_000  # 'far' has waited 35 s: any opponent, but nobody is left
    assert pool.pair().made == []
    pool.open("cai", True, Rules(), 900, 120)
    (late,) = pool.pair().made
    assert {late.a["player"], late.b["player"]} == {"far", "cai"}


def test_seeks_of_other_terms_never_pair(pool: SeekPool, clock: Clock) -> None:
    pool.open("ana", True, Rules(), 1500, 120)
    pool.open("ben", False, Rules(), 1500, 120)
    pool.open("cai", True, Rules(turn_seconds=30), 1500, 120)
    clock.now += 60_000
    assert pool.pair().made == []


def test_a_seek_expires_after_its_seconds_and_the_pass_that_took_it_out_names_it(pool: SeekPool, clock: Clock) -> None:
    old = pool.open("ana", True, Rules(), 1500, 120)
    clock.now += 121_000
    pool.open("ben", True, Rules(), 1500, 120)
    done = pool.pair()
    assert done.made == [] and pool.open_count() == 1
    assert done.expired == [Expired(old.id, "ana")] and pool.pair().expired == []  # named once


def test_a_pairing_falls_through_once_and_its_seek_opens_again_as_it_was(pool: SeekPool, clock: Clock) -> None:
    ana = pool.open("ana", True, Rules(), 1500, 120)
    clock.now += 3_000
    ben = pool.open("ben", True, Rules(), 1510, 120)
    (made,) = pool.pair().made
    assert pool.reopen(made, [made.b]) == {ben.id: "open"}
    assert pool.reopen(made, [made.b]) is None and pool.unfinished(0) == []  # the pairing is gone: once
    assert pool.open("ben", True, Rules(), 1500, 120) == ben.id and pool.open_count() == 1
    clock.now += 1_000
    pool.open("cai", True, Rules(), 1500, 120)
    (again,) = pool.pair().made
    assert again.a == made.b and again.b["player"] == "cai"  # ben's age and rating kept: he sits in A
    assert ana.id not in (again.a["seek"], again.b["seek"])


def test_a_seek_is_not_reopened_when_its_player_seeks_again_meanwhile(pool: SeekPool, clock: Clock) -> None:
    pool.open("ana", True, Rules(), 1500, 120)
    clock.now += 1_000
    pool.open("ben", True, Rules(), 1500, 120)
    (made,) = pool.pair().made
    newer = pool.open("ana", True, Rules(), 1500, 120)
    assert pool.reopen(made, [made.a]) == {made.a["seek"]: "superseded"}
    assert pool.open("ana", True, Rules(), 1500, 120) == newer.id and pool.open_count() == 1


def test_a_seek_that_expired_meanwhile_is_not_reopened(pool: SeekPool, clock: Clock) -> None:
    pool.open("ana", True, Rules(), 1500, 120)
    pool.open("ben", True, Rules(), 1500, 120)
    (made,) = pool.pair().made
    clock.now += 120_000
    assert pool.reopen(made, [made.b]) == {made.b["seek"]: "expired"} and pool.open_count() == 0


def test_a_pairing_stays_until_its_match_is_made(pool: SeekPool, clock: Clock) -> None:
    pool.open("ana", True, Rules(), 1500, 120)
    pool.open("ben", True, Rules(), 1500, 120)
    (made,) = pool.pair().made
    assert pool.unfinished(5_000) == []
    clock.now += 6_000
    assert pool.unfinished(5_000) == [made]
    pool.done(made)
    assert pool.unfinished(0) == []


def test_concurrent_passes_pair_each_seek_once_and_nobody_twice(fake_redis: fakeredis.FakeRedis, clock: Clock) -> None:
    pools = [SeekPool(fake_redis, clock) for _ in range(4)]
    for n in range(200):
        pools[0].open(f"p{n}", True, Rules(), 1000 + (n * 37) % 1000, 120)
    clock.now += 31_000
    made: list = []
    threads = [threading.Thread(target=lambda p=p: made.extend(p.pair().made)) for p in pools]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seated = [side["player"] for pairing in made for side in (pairing.a, pairing.b)]
    assert len(seated) == len(set(seated)) == 200
    assert len({pairing.match_id for pairing in made}) == 100
