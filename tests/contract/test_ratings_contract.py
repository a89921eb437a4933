"""One contract, every ratings store: in memory, Redis on fakeredis, a real redis-server, and a
Redis Cluster of three masters (see :mod:`shared.readmodels.ratings_port`).

The ratings served are the fold of every result recorded in one order, whichever order the
results were recorded in and however many folders ran at once.
"""

from __future__ import annotations

import random
import string
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


# ---- archived matches: chills -----------------------------------------------------------

_ALPHABET = string.ascii_letters + string.digits + "-_"


def _id(rng: random.Random, chars: int) -> str:
    return "".join(rng.choice(_ALPHABET) for _ in range(chars))


def league(count: int = 40, seed: int = 7) -> list[RatedResult]:
    """A season with ids of the server's shapes (16 characters a player, 12 a match): ids a chill packs."""
    rng = random.Random(seed)
    players = [_id(rng, 16) for _ in range(6)]
    return [RatedResult(rng.randrange(30 * DAY_MS), _id(rng, 12), *rng.sample(players, 2), rng.random() < 0.5)
            for _ in range(count)]


def chill(store: RatingsStore, result: RatedResult) -> None:
    store.chill(result.match_id, result.ended_at, [result.player_a, result.player_b])


def histories(store: RatingsStore, players: set[str]) -> dict[str, list]:
    return {player: store.history(player, 0, 1000) for player in players}


def assert_same_history(chilled: list, exact: list, whole: bool = True) -> None:
    """A chilled history: every entry's match, end, opponent, result and counts exact; ratings and RDs
    within 0.001; (``whole``) the last entry's standing exact, the player's rating."""
    assert [(c.match_id, c.at, c.opponent, c.won, c.after.games, c.after.wins) for c in chilled] == \
        [(c.match_id, c.at, c.opponent, c.won, c.after.games, c.after.wins) for c in exact]
    for mine, theirs in zip(chilled, exact):
        assert abs(mine.after.rating.value - theirs.after.rating.value) < 1e-3
        assert abs(mine.after.rating.rd - theirs.after.rating.rd) < 1e-3
        assert abs(mine.before.rating.value - theirs.before.rating.value) < 1e-3
    assert not whole or chilled[-1].after == exact[-1].after


def test_chilled_entries_serve_the_same_ratings_results_board_and_histories(store: RatingsStore) -> None:
    results = sorted(league(), key=lambda r: r.key)
    for result in results:
        store.record(result)
    players = {p for r in results for p in (r.player_a, r.player_b)}
    exact, board, expected = histories(store, players), store.leaderboard(0, 10), ratings_of(results)
    for result in results[:25]:
        chill(store, result)
    assert served(store, players) == expected
    assert store.results() == results and store.leaderboard(0, 10) == board
    for player, history in histories(store, players).items():
        assert_same_history(history, exact[player])
        for after, limit in ((0, 3), (2, 5), (len(history) - 4, 3), (len(history) - 2, 10), (len(history), 5)):
            window = store.history(player, after, limit)
            assert [c.match_id for c in window] == [c.match_id for c in history[after:after + limit]]
            if window:
                assert_same_history(window, exact[player][after:after + limit], whole=False)
    for result in results[25:]:
        chill(store, result)  # every entry cold: the standing after them is still the rating
    assert served(store, players) == expected and store.leaderboard(0, 10) == board
    assert store.results() == results


def test_a_result_told_again_after_its_chill_is_not_counted_twice(store: RatingsStore) -> None:
    results = sorted(league(12, seed=3), key=lambda r: r.key)
    for result in results:
        store.record(result)
        chill(store, result)
    assert all(store.record(result) is False for result in results)
    assert served(store, {results[0].player_a}) == {results[0].player_a: ratings_of(results)[results[0].player_a]}
    assert store.results() == results and store.waiting() == 0


def test_a_result_that_ends_inside_the_chilled_part_is_folded_in_its_place(store: RatingsStore) -> None:
    """Its worker lagged past the archiving of later matches of its players: it still counts where it ended."""
    results = sorted(league(30, seed=5), key=lambda r: r.key)
    late = results[4]
    for result in results:
        if result is not late:
            store.record(result)
            chill(store, result)
    assert store.record(late) is True
    expected = ratings_of(results)
    assert served(store, set(expected)) == expected and store.results() == results
    for player in (late.player_a, late.player_b):
        history = store.history(player, 0, 1000)
        assert late.match_id in [change.match_id for change in history]
        assert history[-1].after == expected[player]


def test_chills_and_results_in_any_order_serve_the_fold_of_them_all(backend: str,
                                                                    request: pytest.FixtureRequest) -> None:
    results = league(30, seed=9)
    for seed in range(3):
        store = _store(backend, request, seed + 3)  # a generation of its own each time
        steps = [("record", r) for r in results] + [("chill", r) for r in results]
        random.Random(seed).shuffle(steps)
        for step, result in steps:
            store.record(result) if step == "record" else chill(store, result)
        expected = ratings_of(results)
        assert served(store, set(expected)) == expected
        assert store.results() == sorted(results, key=lambda r: r.key)
        exact = InMemoryRatings()
        for result in results:
            exact.record(result)
        for player, history in histories(store, set(expected)).items():
            assert_same_history(history, exact.history(player, 0, 1000))
            for after in range(0, len(history), 3):  # every window, across the cold part's end wherever it is
                assert [c.match_id for c in store.history(player, after, 4)] == \
                    [c.match_id for c in history[after:after + 4]]
