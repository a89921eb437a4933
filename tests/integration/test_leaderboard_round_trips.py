"""The leaderboard on a real redis-server: a page is two round trips (its ids, then every
listed player's last entry in one pipeline), however many players it lists."""
from __future__ import annotations

import random
from pathlib import Path

from services.api.round_trips import RoundTripCounter, round_trips
from services.embedded_redis import EmbeddedRedis
from shared.connect import connect
from shared.ratings.rating_fold import RatedResult
from shared.readmodels.rating_store import RedisRatings

MINUTE_MS = 60_000


def test_a_leaderboard_page_is_two_round_trips_however_long(redis_server: EmbeddedRedis, redis_client,
                                                            tmp_path: Path) -> None:
    players = [f"p{n}" for n in range(8)]
    filling = RedisRatings(redis_client)
    rng = random.Random(3)
    for index in range(800):  # some 200 rated matches each: every rating settled
        a, b = rng.sample(players, 2)
        filling.record(RatedResult(1_780_000_000_000 + index * MINUTE_MS, f"m{index:04d}", a, b, rng.random() < 0.5))
    client = connect(redis_server.url, count=RoundTripCounter(tmp_path))
    client.ping()
    ratings = RedisRatings(client)

    for limit in (2, 8):
        before = round_trips(tmp_path)
        board = ratings.leaderboard(0, limit)
        assert round_trips(tmp_path) == before + 2 and len(board) == limit

    assert board == [(player, filling.rating(player)) for player, _ in board]
    assert [rating.rating.value for _, rating in board] == sorted((r.rating.value for _, r in board), reverse=True)
