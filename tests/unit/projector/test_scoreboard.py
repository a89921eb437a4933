"""The scoreboard counts each finished match exactly once per player, in the API's order."""

from __future__ import annotations

import threading

import pytest

from shared.readmodels import ReadModels


def test_a_result_is_counted_once_however_often_it_is_recorded(readmodels: ReadModels) -> None:
    assert readmodels.record_result("m1", "p1", "alice", True, 3, 12, 5, 0)
    assert not readmodels.record_result("m1", "p1", "alice", True, 3, 12, 5, 0)
    assert readmodels.player_row("p1") == {
        "id": "p1", "name": "alice", "matches_played": 1, "matches_won": 1,
        "rounds_won": 3, "points_for": 12, "points_against": 5,
    }
    assert readmodels.scoreboard()["version"] == 1


def test_results_of_several_matches_add_up(readmodels: ReadModels) -> None:
    readmodels.record_result("m1", "p1", "alice", True, 3, 12, 5, 0)
    readmodels.record_result("m2", "p1", "alice", False, 1, 4, 12, 0)
    row = readmodels.player_row("p1")
    assert (row["matches_played"], row["matches_won"], row["rounds_won"]) == (2, 1, 4)
    assert (row["points_for"], row["points_against"]) == (16, 17)


def test_concurrent_recordings_of_the_same_matches_count_each_once(readmodels: ReadModels) -> None:
    matches = [f"m{n}" for n in range(30)]

    def record_all() -> None:
        for n, match_id in enumerate(matches):
            readmodels.record_result(match_id, "p1", "alice", n % 3 == 0, 2, 12 if n % 3 == 0 else 6, 7, 0)

    threads = [threading.Thread(target=record_all) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    row = readmodels.player_row("p1")
    assert (row["matches_played"], row["matches_won"], row["rounds_won"]) == (30, 10, 60)
    assert readmodels.scoreboard() == {"players": [row], "version": 30}


def test_rows_are_ordered_by_wins_then_points_difference_then_name(readmodels: ReadModels) -> None:
    readmodels.record_result("m1", "p-dora", "dora", True, 2, 12, 11, 0)  # 1 win, +1
    readmodels.record_result("m2", "p-carl", "carl", True, 2, 12, 0, 0)  # 1 win, +12
    readmodels.record_result("m3", "p-bob", "bob", True, 2, 12, 11, 0)  # 1 win, +1
    readmodels.record_result("m4", "p-erin", "erin", False, 0, 0, 12, 0)  # 0 wins, -12
    readmodels.record_result("m5", "p-erin", "erin", True, 2, 12, 0, 0)  # erin: 1 win, 0
    readmodels.record_result("m6", "p-al", "al", True, 1, 12, 3, 0)
    readmodels.record_result("m7", "p-al", "al", True, 1, 12, 30, 0)  # 2 wins, -9
    readmodels.record_result("m8", "p-zed", "zed", False, 0, 0, 12, 0)  # 0 wins, -12
    names = [row["name"] for row in readmodels.scoreboard()["players"]]
    assert names == ["al", "carl", "bob", "dora", "erin", "zed"]
    assert [row["name"] for row in readmodels.scoreboard(limit=2)["players"]] == ["al", "carl"]
    assert readmodels.scoreboard(limit=0)["players"] == []
    assert readmodels.scoreboard()["version"] == 8


def test_an_unknown_player_has_no_row(readmodels: ReadModels) -> None:
    assert readmodels.player_row("nobody") is None
    assert readmodels.scoreboard() == {"players": [], "version": 0}


@pytest.mark.parametrize("bad_id", ["p:1", "p}1", ""])
def test_a_player_id_that_could_reshape_a_key_is_refused(readmodels: ReadModels, bad_id: str) -> None:
    with pytest.raises(ValueError):
        readmodels.record_result("m1", bad_id, "alice", True, 1, 1, 0, 0)
