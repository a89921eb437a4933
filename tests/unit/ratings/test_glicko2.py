"""Glicko-2 as the paper computes it, and Lichess's bounds around it."""

from __future__ import annotations

import pytest

from shared.ratings.glicko2 import LICHESS, Game, Rating, aged, bounded, one_game, rate


def test_glickmans_worked_example_is_reproduced_to_a_hundredth() -> None:
    player = Rating(1500, 200, 0.06)
    games = [Game(Rating(1400, 30, 0.06), 1), Game(Rating(1550, 100, 0.06), 0), Game(Rating(1700, 300, 0.06), 0)]
    after = rate(player, games, tau=0.5)
    # The paper rounds its intermediate values and prints 1464.06; computed exactly it is 1464.05.
    assert after.value == pytest.approx(1464.05, abs=0.01)
    assert after.rd == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_a_period_without_games_only_widens_the_deviation() -> None:
    after = rate(Rating(1500, 200, 0.06), [], tau=0.5)
    assert after.value == 1500 and after.volatility == 0.06
    assert after.rd == pytest.approx(200.2714, abs=0.001)


def test_a_win_raises_and_a_loss_lowers_a_new_player_by_the_same_amount() -> None:
    start = LICHESS.start
    won, lost = one_game(start, start, 1.0), one_game(start, start, 0.0)
    assert won.value > 1500 > lost.value
    assert won.value - 1500 == pytest.approx(1500 - lost.value)
    assert won.rd < 500 and won.volatility <= LICHESS.max_volatility


def test_rd_and_volatility_stay_within_lichess_bounds() -> None:
    settled = Rating(1800, 40, 0.3)
    assert bounded(settled) == Rating(1800, 45, 0.1)
    assert bounded(Rating(1800, 900, 0.05)).rd == 500


def test_rd_grows_with_idle_days_at_lichess_rate_and_never_past_the_cap() -> None:
    player = Rating(1600, 60, 0.06)
    a_year = aged(player, 365)
    assert 60 < a_year.rd < 500 and a_year.value == 1600
    assert aged(player, 0).rd == pytest.approx(60)
    assert aged(Rating(1600, 400, 0.1), 100_000).rd == 500
