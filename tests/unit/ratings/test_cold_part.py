"""A player's cold part on Redis: what a chill moves, how it is laid out, and what it leaves hot."""
from __future__ import annotations

import pytest

from shared import keys
from shared.ratings.rating_fold import RatedResult, ratings_of
from shared.readmodels.rating_cold import (
    HEADER_BYTES,
    RECORD_BYTES,
    cold_header,
    cold_record,
    records,
    result_of_record,
    standing,
)
from shared.readmodels.rating_entries import entry_member
from shared.readmodels.rating_store import RedisRatings
from tests.contract.test_ratings_contract import chill, league

pytestmark = pytest.mark.unit

ANA, BEN = "Ana-0123456789ab", "Ben_0123456789ab"  # ids of the server's shapes


def test_a_record_holds_its_result_and_the_header_the_exact_standing(fake_redis) -> None:
    store = RedisRatings(fake_redis)
    result = RatedResult(1_767_225_600_123, "M-0123456789", ANA, BEN, False)
    store.record(result)
    (member, score), = fake_redis.zrange(keys.player_ratings(BEN), 0, -1, withscores=True)
    record = cold_record(BEN, member, score)
    assert len(record) == RECORD_BYTES == 36
    assert result_of_record(BEN, record) == result  # B's record, seated B, won
    header = cold_header(BEN, member, score)
    assert len(header) == HEADER_BYTES and standing(header, record) == store.rating(BEN)


def test_a_chill_moves_the_oldest_entries_up_to_its_match(fake_redis) -> None:
    store = RedisRatings(fake_redis)
    results = sorted(league(40, seed=2), key=lambda r: r.key)
    for result in results:
        store.record(result)
    middle = results[20]
    chill(store, middle)
    for player in (middle.player_a, middle.player_b):
        played = [r for r in results if player in (r.player_a, r.player_b)]
        cold = [r for r in played if r.key <= middle.key]
        body = fake_redis.get(keys.player_ratings_cold(player))[HEADER_BYTES:]
        assert [result_of_record(player, record) for record in records(body)] == cold
        assert len(body) == RECORD_BYTES * len(cold)
        hot = fake_redis.zrange(keys.player_ratings(player), 0, -1)
        assert len(hot) == len(played) - len(cold)
    assert store.rating(middle.player_a) == ratings_of(results)[middle.player_a]


def test_entries_whose_ids_do_not_pack_stay_hot_and_stop_the_move(fake_redis) -> None:
    store = RedisRatings(fake_redis)
    results = [RatedResult(1000, "M-0000000001", ANA, BEN, True),
               RatedResult(2000, "imported-match-7", ANA, BEN, False),  # an id the server never makes
               RatedResult(3000, "M-0000000003", ANA, BEN, True)]
    for result in results:
        store.record(result)
    chill(store, results[2])
    for player in (ANA, BEN):
        body = fake_redis.get(keys.player_ratings_cold(player))[HEADER_BYTES:]
        assert [result_of_record(player, record).match_id for record in records(body)] == ["M-0000000001"]
        assert fake_redis.zcard(keys.player_ratings(player)) == 2  # the odd one, and the one after it
    assert store.results() == results and store.rating(ANA) == ratings_of(results)[ANA]


def test_a_folder_that_lost_its_lock_moves_nothing(fake_redis) -> None:
    store = RedisRatings(fake_redis)
    result = RatedResult(1000, "M-0000000001", ANA, BEN, True)
    store.record(result)
    stale = "1"  # a fence lower than the highest that wrote the histories
    fake_redis.set(keys.player_ratings_fence(ANA), "99")
    fake_redis.set(keys.ratings_lock(), stale)  # it still believes it holds the lock
    store._chill(ANA, result.key, stale)
    assert not fake_redis.exists(keys.player_ratings_cold(ANA)) and fake_redis.zcard(keys.player_ratings(ANA)) == 1
    member = entry_member(next(iter(store.history(ANA, 0, 1))), True)
    assert fake_redis.zscore(keys.player_ratings(ANA), member) == 1000


def test_a_fold_whose_history_moved_to_the_cold_part_meanwhile_starts_again(fake_redis, monkeypatch) -> None:
    """A folder that lost its lock, stalled in a chill, moves entries after the lock's new holder read
    them: the holder's rewrite is refused and its fold starts again, so no entry is kept twice."""
    late = RatedResult(2000, "M-0000000002", ANA, BEN, False)
    results = [RatedResult(1000, "M-0000000001", ANA, BEN, True), late,
               RatedResult(3000, "M-0000000003", ANA, BEN, True)]
    stale, holder = RedisRatings(fake_redis), RedisRatings(fake_redis)
    for result in (results[0], results[2]):
        stale.record(result)
    fake_redis.zadd(keys.ratings_pending(), {f"{late.match_id} {ANA} {BEN} B": late.ended_at})  # its worker lagged
    chill_of_late = f"{late.match_id} {ANA} {BEN}"
    fake_redis.zadd(keys.ratings_chills(), {chill_of_late: late.ended_at})
    token = str(fake_redis.incr(keys.ratings_fences()))
    fake_redis.set(keys.ratings_lock(), token)
    stale._fold(fake_redis.zrange(keys.ratings_pending(), 0, -1, withscores=True), token)
    fake_redis.delete(keys.ratings_lock())  # its lock expires before its chill lands
    holds = RedisRatings._holds

    def stale_chill_lands(self, held: str) -> None:
        holds(self, held)
        if held != token and not fake_redis.exists(keys.player_ratings_cold(ANA)):
            monkeypatch.setattr(RedisRatings, "_holds", lambda *_: None)
            stale._chill(ANA, late.key, token)  # past the holder's read of the histories
            monkeypatch.setattr(RedisRatings, "_holds", stale_chill_lands)

    monkeypatch.setattr(RedisRatings, "_holds", stale_chill_lands)
    holder.settle()
    monkeypatch.setattr(RedisRatings, "_holds", holds)
    history = holder.history(ANA, 0, 100)
    assert [change.match_id for change in history] == [r.match_id for r in results]
    assert [change.after.games for change in history] == [1, 2, 3]
    assert holder.rating(ANA) == ratings_of(results)[ANA] and holder.results() == results
