"""The ratings fold's fencing, on a real redis-server: a folder whose lock expired and was taken
over writes nothing, whether it finds out before writing or only in the write scripts."""
from __future__ import annotations

import random

import pytest

from shared import keys
from shared.ratings.rating_fold import DAY_MS, RatedResult, ratings_of
from shared.readmodels import rating_store
from shared.readmodels.rating_store import RedisRatings

PLAYERS = [f"p{n}" for n in range(5)]


def season(count: int, seed: int, first: int = 0) -> list[RatedResult]:
    rng = random.Random(seed)
    return [RatedResult(rng.randrange(30 * DAY_MS), f"m{first + index:03d}", *rng.sample(PLAYERS, 2),
                        rng.random() < 0.5) for index in range(first, first + count)]


def written(client) -> dict:
    """Everything the fold writes: every history and the board."""
    histories = {p: client.zrange(keys.player_ratings(p), 0, -1, withscores=True) for p in PLAYERS}
    return {"histories": histories, "board": client.zrange(keys.leaderboard(), 0, -1, withscores=True)}


def stalled(monkeypatch, store: RedisRatings, stage: str, meanwhile) -> None:
    """Make ``store``'s next fold stall at ``stage`` (after reading, or after its lock check) while its lock
    expires and ``meanwhile`` runs (another folder takes the lock and folds)."""
    original = getattr(store, stage)

    stalled_once = []

    def stall(*args, **kwargs):
        if not stalled_once:
            stalled_once.append(stage)
            store._client.delete(keys.ratings_lock())  # the lock expired (LOCK_MS) while this folder stalled
            meanwhile()
        return original(*args, **kwargs)

    monkeypatch.setattr(store, stage, stall)


@pytest.mark.parametrize("stage", ["_standings", "_rewrite"], ids=["before the lock check", "after it"])
def test_a_fold_whose_lock_was_taken_over_writes_nothing(redis_client, monkeypatch, stage: str) -> None:
    stale, newer = RedisRatings(redis_client), RedisRatings(redis_client)
    first, late = season(30, seed=3), season(10, seed=4, first=30)
    for result in first:
        stale.record(result, fold=False)

    after_take_over: list[dict] = []

    def take_over() -> None:
        for result in late:  # results the stalled folder never read: its fold would now be wrong
            newer.record(result, fold=False)
        assert newer.settle() == 40
        after_take_over.append(written(redis_client))

    stalled(monkeypatch, stale, stage, take_over)
    if stage == "_rewrite":  # past the check: only the write scripts' fences stand in its way
        monkeypatch.setattr(rating_store, "HOLDS", lambda *_: 1)

    stale.settle()

    assert written(redis_client) == after_take_over[0]  # the stalled folder wrote nothing
    expected = ratings_of(first + late)
    assert {p: newer.rating(p) for p in expected} == expected and newer.waiting() == 0
