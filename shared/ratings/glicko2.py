"""Glicko-2 (Glickman, "Example of the Glicko-2 system", 2013), written out in full (pure).

A few dozen lines of our own rather than a package: each step below is one step of the
paper, so a reader can hold the two side by side. :func:`rate` is the paper's update of one
player over one rating period; :class:`Parameters` adds what a server chooses (Lichess's:
where a new player starts, the bounds on RD and volatility, how fast RD grows with idle time).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SCALE = 173.7178  # the Glicko-2 scale: μ = (r - 1500) / SCALE, φ = RD / SCALE
CONVERGENCE = 0.000001  # ε of step 5


@dataclass(frozen=True)
class Rating:
    """A player's rating, on the Glicko scale (1500 / 350 / σ)."""

    value: float
    rd: float
    volatility: float


@dataclass(frozen=True)
class Game:
    """One game of the period, as the rated player saw it: the opponent's rating and the score (1, 0.5, 0)."""

    opponent: Rating
    score: float


@dataclass(frozen=True)
class Parameters:
    """A server's choices around the paper's update (Lichess's by default)."""

    start: Rating = Rating(1500.0, 500.0, 0.09)
    tau: float = 0.75
    min_rd: float = 45.0
    max_rd: float = 500.0
    max_volatility: float = 0.1
    periods_per_day: float = 0.21436


LICHESS = Parameters()


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, by the Illinois algorithm of the paper."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau)

    upper = a
    if delta * delta > phi * phi + v:
        lower = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        lower = a - k * tau
    f_upper, f_lower = f(upper), f(lower)
    while abs(lower - upper) > CONVERGENCE:
        c = upper + (upper - lower) * f_upper / (f_lower - f_upper)
        f_c = f(c)
        if f_c * f_lower <= 0:
            upper, f_upper = lower, f_lower
        else:
            f_upper /= 2.0
        lower, f_lower = c, f_c
    return math.exp(upper / 2.0)


def rate(player: Rating, games: Sequence[Game], tau: float) -> Rating:
    """The paper's update of ``player`` over one rating period of ``games`` (steps 2-8)."""
    mu, phi, sigma = (player.value - 1500.0) / SCALE, player.rd / SCALE, player.volatility
    if not games:  # step 6 alone: only the deviation grows
        return Rating(player.value, SCALE * math.sqrt(phi * phi + sigma * sigma), sigma)
    scored = []
    for game in games:
        mu_j, phi_j = (game.opponent.value - 1500.0) / SCALE, game.opponent.rd / SCALE
        scored.append((_g(phi_j), _expected(mu, mu_j, phi_j), game.score))
    v = 1.0 / sum(g * g * e * (1.0 - e) for g, e, _ in scored)
    improvement = sum(g * (s - e) for g, e, s in scored)
    new_sigma = _volatility(sigma, phi, v, v * improvement, tau)
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * improvement
    return Rating(1500.0 + SCALE * new_mu, SCALE * new_phi, new_sigma)


def aged(player: Rating, idle_days: float, params: Parameters = LICHESS) -> Rating:
    """``player`` after ``idle_days`` without a rated game: RD grows with the periods passed."""
    periods = max(idle_days, 0.0) * params.periods_per_day
    phi, sigma = player.rd / SCALE, player.volatility
    rd = SCALE * math.sqrt(phi * phi + periods * sigma * sigma)
    return Rating(player.value, min(rd, params.max_rd), sigma)


def bounded(player: Rating, params: Parameters = LICHESS) -> Rating:
    """``player`` with RD kept within the server's bounds and the volatility capped."""
    rd = min(max(player.rd, params.min_rd), params.max_rd)
    return Rating(player.value, rd, min(player.volatility, params.max_volatility))


def one_game(player: Rating, opponent: Rating, score: float, params: Parameters = LICHESS) -> Rating:
    """``player`` after one game against ``opponent`` (both as they stood, aged), one rating period."""
    return bounded(rate(player, [Game(opponent, score)], params.tau), params)
