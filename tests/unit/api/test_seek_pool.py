"""The seek pool: pools by terms, one open seek a player, a window that widens, no seek paired twice."""
from __future__ import annotations

import threading

import fakeredis
import pytest

from services.api.seek_pool import SeekPool, pool_of
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
    assert pool.pair() == []
    clock.now += 5_000  # windows of 200: still too far apart
    assert pool.pair() == []
    pool.open("ben", True, Rules(), 1550, 120)
    (made,) = pool.pair()
    assert {made.a["player"], made.b["player"]} == {"ana", "ben"} and made.a["player"] == "ana"  # older in A
    clock.now += 30_000  # 'far' has waited 35 s: any opponent, but nobody is left
    assert pool.pair() == []
    pool.open("cai", True, Rules(), 900, 120)
    (late,) = pool.pair()
    assert {late.a["player"], late.b["player"]} == {"far", "cai"}


def test_seeks_of_other_terms_never_pair(pool: SeekPool, clock: Clock) -> None:
    pool.open("ana", True, Rules(), 1500, 120)
    pool.open("ben", False, Rules(), 1500, 120)
    pool.open("cai", True, Rules(turn_seconds=30), 1500, 120)
    clock.now += 60_000
    assert pool.pair() == []


def test_a_seek_expires_after_its_seconds(pool: SeekPool, clock: Clock) -> None:
    pool.open("ana", True, Rules(), 1500, 120)
    clock.now += 121_000
    pool.open("ben", True, Rules(), 1500, 120)
    assert pool.pair() == [] and pool.open_count() == 1


def test_a_pairing_stays_until_its_match_is_made(pool: SeekPool, clock: Clock) -> None:
    pool.open("ana", True, Rules(), 1500, 120)
    pool.open("ben", True, Rules(), 1500, 120)
    (made,) = pool.pair()
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
    threads = [threading.Thread(target=lambda p=p: made.extend(p.pair())) for p in pools]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seated = [side["player"] for pairing in made for side in (pairing.a, pairing.b)]
    assert len(seated) == len(set(seated)) == 200
    assert len({pairing.match_id for pairing in made}) == 100
