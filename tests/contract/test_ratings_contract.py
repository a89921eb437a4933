"""One contract, every ratings store: in memory, Redis on fakeredis, a real redis-server, and a
Redis Cluster of three masters (see :mod:`shared.readmodels.ratings_port`).

The ratings served are the fold of every result recorded in one order, whichever order the
results were recorded in and however many folders ran at once.
"""

from __future__ import annotations

import random
import threading

import pytest

from shared.ratings.rating_fold import DAY_MS, RatedResult, ratings_of
from shared.readmodels.memory_ratings import InMemoryRatings
from shared.readmodels.rating_store import RedisRatings
from shared.readmodels.ratings_port import RatingsStore


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


def _store(backend: str, request: pytest.FixtureRequest, generation: int) -> RatingsStore:
    if backend == "memory":
        return InMemoryRatings()
    client_fixture = {"fakeredis": "fake_redis", "redis": "redis_client", "cluster": "redis_cluster_client"}[backend]
    return RedisRatings(request.getfixturevalue(client_fixture), generation)


@pytest.fixture(params=[0, 2], ids=["generation 0", "generation 2"])
def store(backend: str, request: pytest.FixtureRequest) -> RatingsStore:
    return _store(backend, request, request.param)


def season(count: int = 40, seed: int = 7) -> list[RatedResult]:
    rng = random.Random(seed)
    players = [f"p{n}" for n in range(6)]
    out = []
    for index in range(count):
        a, b = rng.sample(players, 2)
        out.append(RatedResult(rng.randrange(30 * DAY_MS), f"m{index:03d}", a, b, rng.random() < 0.5))
    return out


def served(store: RatingsStore, players: set[str]) -> dict:
    return {player: store.rating(player) for player in players}


def test_the_store_satisfies_the_port(store: RatingsStore) -> None:
    assert isinstance(store, RatingsStore)


def test_a_result_is_recorded_once_however_often_it_is_told(store: RatingsStore) -> None:
    result = RatedResult(DAY_MS, "m1", "ana", "ben", True)
    assert store.record(result) is True
    assert store.record(result) is False
    assert store.results() == [result]
    assert store.rating("ana").games == 1 and store.rating("ana").wins == 1
    assert store.rating("ben").wins == 0 and store.rating("cai") is None
    assert store.waiting() == 0


def test_results_recorded_out_of_order_serve_the_fold_in_order(store: RatingsStore) -> None:
    results = season()
    shuffled = list(results)
    random.Random(3).shuffle(shuffled)
    for result in shuffled:
        store.record(result)
    expected = ratings_of(results)
    assert served(store, set(expected)) == expected
    assert store.results() == sorted(results, key=lambda r: r.key)


def test_the_history_is_one_entry_per_match_oldest_first_and_windowed(store: RatingsStore) -> None:
    results = season()
    for result in reversed(results):
        store.record(result)
    history = store.history("p0", 0, 1000)
    mine = sorted((r for r in results if "p0" in (r.player_a, r.player_b)), key=lambda r: r.key)
    assert [change.match_id for change in history] == [r.match_id for r in mine]
    assert history[0].before.games == 0
    assert all(earlier.after == later.before for earlier, later in zip(history, history[1:]))
    assert store.history("p0", 2, 3) == history[2:5]
    assert store.history("p0", 0, 0) == []
    assert history[-1].after == store.rating("p0")


def test_the_leaderboard_ranks_only_settled_players_by_rating(store: RatingsStore) -> None:
    results = [RatedResult(index * 1000, f"m{index:03d}", "ana", "ben", index % 3 != 0) for index in range(60)]
    results.append(RatedResult(70_000, "x001", "cai", "dee", True))
    for result in results:
        store.record(result)
    board = store.leaderboard(0, 10)
    assert [player for player, _ in board] == ["ana", "ben"]  # cai and dee: one game each, provisional
    assert board[0][1].rating.value > board[1][1].rating.value and not board[0][1].provisional
    assert store.leaderboard(1, 10) == board[1:]


def test_concurrent_folders_serve_the_same_ratings_as_one(backend: str, request: pytest.FixtureRequest) -> None:
    if backend == "memory":
        store = InMemoryRatings()
        stores = [store] * 4
    else:
        stores = [_store(backend, request, 0) for _ in range(4)]
    results = season(80, seed=11)
    shuffled = list(results)
    random.Random(5).shuffle(shuffled)
    threads = [threading.Thread(target=lambda part=shuffled[n::4], s=stores[n]: [s.record(r) for r in part])
               for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stores[0].settle()
    expected = ratings_of(results)
    assert served(stores[0], set(expected)) == expected and stores[0].waiting() == 0


def test_results_recorded_without_folding_wait_until_settled(store: RatingsStore) -> None:
    results = season(30, seed=13)
    for result in reversed(results):
        store.record(result, fold=False)
    assert store.waiting() == 30 and store.rating(results[0].player_a) is None
    assert store.settle() == 30
    expected = ratings_of(results)
    assert served(store, set(expected)) == expected and store.waiting() == 0
