"""The bots, engine only (no HTTP): a short duel of the search against today's heuristic,
with its Wilson interval, and the time each level takes a decision.

Baseline in the same run: the heuristic against the random player, the figure the search
is to beat by a wide margin. The duels' results are not kept (the full table, which is,
is ``make duel``: bench/duel_table.py).
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from shared.botplay.duel import play_match, run, summary


def _duel(first: str, second: str, matches: int, seed: int, workers: int) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        return summary(run(first, second, matches, seed, workers, Path(folder) / "duel.jsonl"))


def _line(first: str, second: str, result: dict) -> str:
    low, high = result["wilson95"]
    return (f"  {first} vs {second}: {result['matches']} matches, {first} wins {result['win_rate']:6.1%} "
            f"[Wilson 95 % {low:.1%}..{high:.1%}]")


def _decision_times(level: str, matches: int) -> tuple[float, float, int]:
    """CPU ms per decision of ``level`` (p50, p99, decisions) over a few matches against medium."""
    ms = sorted(m for index in range(matches) for m in play_match(level, "medium", 11, index)["tallies"][0]["ms"])
    return ms[len(ms) // 2], ms[min(len(ms) - 1, int(0.99 * len(ms)))], len(ms)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    started = time.perf_counter()
    print(f"bots, seats and first dealers alternated, {args.workers} processes")
    print(_line("hard", "medium", _duel("hard", "medium", args.matches, 1, args.workers)))
    print(_line("medium", "easy", _duel("medium", "easy", args.matches, 2, args.workers)) + "  (baseline)")
    for level, matches in (("easy", 20), ("medium", 20), ("hard", 10), ("expert", 2)):
        p50, p99, count = _decision_times(level, matches)
        print(f"  {level:<7} CPU ms per decision p50 {p50:8.2f}  p99 {p99:8.2f}  ({count} decisions)")
    print(f"  ({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
