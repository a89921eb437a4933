"""One contract, every read-model store: in memory, Redis on fakeredis, a real redis-server,
and a Redis Cluster of three masters.

A store that passes this suite can replace another under the projector (which writes it)
and the API (which reads it) without either noticing. See :mod:`shared.readmodels.port`.
"""

from __future__ import annotations

from typing import Any

import pytest

from shared.readmodels.memory import InMemoryGenerationModels
from shared.readmodels.port import ReadModelStore
from shared.readmodels.writes import GenerationModels, InvalidAudienceError


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


@pytest.fixture(params=[0, 2], ids=["generation 0", "generation 2"])
def store(backend: str, request: pytest.FixtureRequest) -> ReadModelStore:
    if backend == "memory":
        return InMemoryGenerationModels(request.param)
    # Fetched lazily so that memory-only runs never start a redis-server.
    client_fixture = {"fakeredis": "fake_redis", "redis": "redis_client", "cluster": "redis_cluster_client"}[backend]
    return GenerationModels(request.getfixturevalue(client_fixture), request.param)


def seat(player_id: str) -> dict[str, Any]:
    return {"id": player_id, "name": player_id.upper()}


def summary_of(match_id: str, version: int, status: str = "playing", *, private: bool = False,
               players: tuple[str, ...] = ("p1", "p2")) -> dict[str, Any]:
    seats = dict(zip(("A", "B"), (seat(player) for player in players)))
    return {"id": match_id, "status": status, "version": version, "players": {"A": None, "B": None, **seats},
            "private": private}


def views_of(match_id: str, version: int) -> dict[str, dict[str, Any]]:
    return {audience: {"id": match_id, "version": version, "seen_by": audience} for audience in ("A", "B", "spectator")}


def write(store: ReadModelStore, match_id: str, version: int, status: str = "playing", **options: Any) -> bool:
    private = options.pop("private", False)
    return store.write_match(match_id, version, views_of(match_id, version),
                             summary_of(match_id, version, status, private=private), **options)


def test_the_store_satisfies_the_port(store: ReadModelStore) -> None:
    assert isinstance(store, ReadModelStore)


def test_written_views_read_back_per_audience(store: ReadModelStore) -> None:
    assert store.view("m1", "A") is None and store.summary("m1") is None and store.projected_version("m1") == 0
    assert write(store, "m1", 3)
    assert store.view("m1", "B") == {"id": "m1", "version": 3, "seen_by": "B"}
    assert store.view_json("m1", "spectator") == b'{"id":"m1","version":3,"seen_by":"spectator"}'
    assert store.summary("m1") == summary_of("m1", 3)
    assert store.projected_versions(["m1", "m2"]) == [3, 0]
    with pytest.raises(InvalidAudienceError):
        store.view("m1", "C")


def test_views_never_move_backwards_and_a_rebuild_may_rewrite_the_same_version(store: ReadModelStore) -> None:
    write(store, "m1", 5)
    assert not write(store, "m1", 4)
    assert not write(store, "m1", 5)
    assert store.projected_version("m1") == 5
    assert store.write_match("m1", 5, views_of("m1", 5), summary_of("m1", 5, "finished"), replace_same_version=True)
    assert store.summary("m1")["status"] == "finished"
    assert not store.write_match("m1", 4, views_of("m1", 4), summary_of("m1", 4), replace_same_version=True)


def test_a_match_is_listed_under_one_status_in_the_lobby_and_its_players_lists(store: ReadModelStore) -> None:
    write(store, "m1", 1, "waiting")
    assert store.place_in_lobby("m1", "waiting", 1000, ["p1", "p2"], read_status=True) == "waiting"
    write(store, "m1", 2, "playing")
    assert store.place_in_lobby("m1", "playing", 1000, ["p1", "p2"], read_status=True) == "playing"
    assert store.lobby("waiting") == []
    assert [line["id"] for line in store.lobby("playing")] == ["m1"]
    assert [line["id"] for line in store.player_matches("p2", "playing")] == ["m1"]
    assert store.place_in_lobby("m9", "waiting", 1000, read_status=True) is None  # no summary stored


def test_the_lobby_lists_newest_first_up_to_the_limit_and_hides_private_matches(store: ReadModelStore) -> None:
    for n, private in ((1, False), (2, True), (3, False), (4, False)):
        write(store, f"m{n}", 1, "waiting", private=private)
        store.place_in_lobby(f"m{n}", "waiting", 1000 * n, ["p1"])
    assert [line["id"] for line in store.lobby("waiting")] == ["m4", "m3", "m1"]
    assert [line["id"] for line in store.lobby("waiting", limit=2)] == ["m4", "m3"]
    assert [line["id"] for line in store.player_matches("p1", "waiting")] == ["m4", "m3", "m2", "m1"]
    assert [line["id"] for line in store.player_matches("p1", "waiting", hide=True)] == ["m4", "m3", "m1"]


def test_a_stale_listing_is_moved_as_it_is_met_and_settling_follows_the_stored_summary(
    store: ReadModelStore,
) -> None:
    write(store, "m1", 2, "playing")
    store.place_in_lobby("m1", "waiting", 1000, ["p1"])  # a slower worker listed an older status
    assert store.lobby("waiting") == []
    assert [line["id"] for line in store.lobby("playing")] == ["m1"]
    store.place_in_lobby("m1", "waiting", 1000, ["p1"])
    store.settle_lobby("m1", 1000)
    assert [line["id"] for line in store.player_matches("p1", "playing")] == ["m1"]


def test_a_match_listed_before_its_views_are_written_is_shown_once_written(store: ReadModelStore) -> None:
    store.place_in_lobby("m1", "waiting", 1000)
    assert store.lobby("waiting") == []
    write(store, "m1", 1, "waiting")
    assert [line["id"] for line in store.lobby("waiting")] == ["m1"]


def test_each_finished_match_counts_once_per_player(store: ReadModelStore) -> None:
    assert store.record_result("m1", "p1", "Ana", True, 2, 30, 12)
    assert not store.record_result("m1", "p1", "Ana", True, 2, 30, 12)
    assert store.record_result("m2", "p1", "Ana", False, 1, 10, 30)
    assert store.player_row("p1") == {"id": "p1", "name": "Ana", "matches_played": 2, "matches_won": 1,
                                      "rounds_won": 3, "points_for": 40, "points_against": 42}
    assert store.player_row("p9") is None
    assert store.scoreboard()["version"] == 2


def test_the_scoreboard_ranks_by_wins_then_points_difference_then_name(store: ReadModelStore) -> None:
    store.record_result("m1", "p1", "Zoé", True, 2, 30, 10)
    store.record_result("m1", "p2", "Bea", False, 0, 10, 30)
    store.record_result("m2", "p3", "Ana", True, 2, 30, 10)
    store.record_result("m2", "p4", "Cid", False, 1, 29, 30)
    board = store.scoreboard()
    assert [row["id"] for row in board["players"]] == ["p3", "p1", "p4", "p2"]
    assert [row["id"] for row in store.scoreboard(limit=2)["players"]] == ["p3", "p1"]
    assert store.scoreboard(limit=0)["players"] == []
    assert board["version"] == 2


def test_generations_do_not_see_each_other(backend: str, request: pytest.FixtureRequest) -> None:
    if backend == "memory":
        one, two = InMemoryGenerationModels(1), InMemoryGenerationModels(2)
    else:
        client = request.getfixturevalue({"fakeredis": "fake_redis", "redis": "redis_client",
                                          "cluster": "redis_cluster_client"}[backend])
        one, two = GenerationModels(client, 1), GenerationModels(client, 2)
    write(one, "m1", 1)
    one.record_result("m1", "p1", "Ana", True, 2, 30, 10)
    assert two.projected_version("m1") == 0 and two.scoreboard() == {"players": [], "version": 0}
