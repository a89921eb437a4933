"""Duels: reproducible by seed, saved as they go and resumed, and summed up with a Wilson
interval; the CLI prints the figures."""
import json
import math

import pytest
from click.testing import CliRunner

from services.cli import truc
from shared.botplay.duel import play_match, run, summary, wilson


def test_wilson_matches_the_textbook_values():
    low, high = wilson(8, 10)
    assert math.isclose(low, 0.4902, abs_tol=1e-4) and math.isclose(high, 0.9433, abs_tol=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)
    assert wilson(400, 400)[0] > 0.99 and wilson(400, 400)[1] == 1.0


def _untimed(record):
    """A match's record without its decision times (the only part a rerun changes)."""
    return {**record, "tallies": [{k: v for k, v in t.items() if k != "ms"} for t in record["tallies"]]}


def test_a_match_of_a_duel_is_fixed_by_its_seed_and_index():
    played = _untimed(play_match("random", "search:20", 3, 5))
    assert played == _untimed(play_match("random", "search:20", 3, 5))
    assert played != _untimed(play_match("random", "search:20", 4, 5))


def test_seats_and_first_dealers_alternate():
    records = [play_match("heuristic", "heuristic", 1, index) for index in range(4)]
    assert [r["index"] for r in records] == [0, 1, 2, 3]
    assert all(r["points"][0] >= 12 or r["points"][1] >= 12 or r["rounds"] >= 48 for r in records)


def test_a_duel_saves_each_match_and_resumes_where_it_stopped(tmp_path):
    path = tmp_path / "duel.jsonl"
    first = run("random", "tight", 3, 9, 1, path)
    assert len(path.read_text().splitlines()) == 4  # the duel's header, then a line a match
    again = run("random", "tight", 5, 9, 1, path)
    assert again[:3] == first and len(path.read_text().splitlines()) == 6  # only the two new ones played
    assert run("random", "tight", 5, 9, 1, path) == again
    with pytest.raises(ValueError):
        run("random", "heuristic", 5, 9, 1, path)  # another duel's file


def test_the_summary_counts_raises_folds_and_times():
    records = [play_match("raiser", "tight", 2, index) for index in range(6)]
    result = summary(records)
    raiser, tight = result["sides"]
    assert result["matches"] == 6 and 0 <= result["wilson95"][0] <= result["win_rate"] <= result["wilson95"][1]
    assert raiser["raises_per_round"] > tight["raises_per_round"] and raiser["folds_per_round"] == 0
    assert raiser["decisions"] > 0 and raiser["ms_p99"] >= raiser["ms_p50"]


def test_the_cli_prints_the_win_rate_with_its_interval(tmp_path):
    out = tmp_path / "d.jsonl"
    result = CliRunner().invoke(truc, ["duel", "search:20", "random", "--matches", "2", "--seed", "4",
                                       "--results", str(out)])
    assert result.exit_code == 0, result.output
    assert "search:20 vs random: 2 matches" in result.output and "Wilson 95%" in result.output
    assert "p99" in result.output and json.loads(out.read_text().splitlines()[0]) == {
        "duel": ["search:20", "random"], "seed": 4}


def test_the_cli_refuses_an_unknown_strategy():
    result = CliRunner().invoke(truc, ["duel", "grandmaster", "random"])
    assert result.exit_code == 2 and "grandmaster" in result.output


def test_the_all_in_player_stakes_every_match_on_one_round():
    """It declares its remainder at its first turn, which cannot be refused but by losing the match
    (R18): medium, who refuses it on poor cards, loses at once; the search plays that round out."""
    for index in range(4):
        against_medium = play_match("allin", "heuristic", 3, index)
        assert against_medium["rounds"] == 1 and against_medium["tallies"][0]["raises"] == 1
        against_search = play_match("allin", "search:20", 3, index)
        assert against_search["rounds"] == 1 and max(against_search["points"]) == 12


def test_the_duel_table_judges_a_goal_by_the_intervals_lower_bound():
    from bench.duel_table import row

    result = summary([play_match("station", "random", 3, index) for index in range(10)])
    low, _ = result["wilson95"]
    between = (low + result["win_rate"]) / 2  # a goal above the lower bound, at most the win rate
    assert row("a", "b", result, between, None).endswith(f"≥{between:.0%} not yet")
    assert row("a", "b", result, low, None).endswith(f"≥{low:.0%} met")
