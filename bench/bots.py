"""The heuristic bot's win rate against the random bot, over many matches (engine only, no HTTP).

Baseline in the same run: the random bot against itself (about 50 %), so the heuristic's
edge reads against chance measured on this very machine and code.
"""
from __future__ import annotations

import argparse
import math
import random
import time

from services.bots.strategies import STRATEGIES, Strategy
from shared.rules import (
    INITIAL,
    SEATS,
    CreateMatch,
    JoinMatch,
    Status,
    command_for,
    step,
    view,
)


def play(first: Strategy, second: Strategy, rng: random.Random) -> int:
    """One match, ``first`` in seat A; returns 1 if A wins."""
    state = INITIAL
    for command in (CreateMatch("m", "a"), JoinMatch("b")):
        state = step(state, command, rng).state
    players = {SEATS[0]: first, SEATS[1]: second}
    while state.status is not Status.FINISHED:
        for seat in SEATS:
            action = players[seat](view(state, seat))
            if action is not None:
                state = step(state, command_for(seat, action), rng).state
                break
    return 1 if state.winner is SEATS[0] else 0


def win_rate(name_a: str, name_b: str, matches: int, seed: int) -> float:
    rng = random.Random(seed)
    wins = 0
    for n in range(matches):
        a, b = STRATEGIES[name_a](rng), STRATEGIES[name_b](rng)
        # Alternate seats so neither strategy gains from sitting A.
        wins += play(a, b, rng) if n % 2 == 0 else 1 - play(b, a, rng)
    return wins / matches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=1000)
    args = parser.parse_args()
    started = time.perf_counter()
    heuristic = win_rate("heuristic", "random", args.matches, seed=1)
    baseline = win_rate("random", "random", args.matches, seed=2)
    margin = 1.96 * math.sqrt(0.25 / args.matches)
    print(f"bots, {args.matches} matches each (seats alternate), ±{margin:.1%} at 95 %")
    print(f"  heuristic vs random: heuristic wins {heuristic:6.1%}")
    print(f"  baseline random vs random:         {baseline:6.1%}")
    print(f"  ({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
