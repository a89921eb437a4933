"""Random full matches per second through the engine's ``step`` (decide, then evolve) on one core.

Every command of the playthrough goes through ``shared.rules.step``, the step the service
and a bot's search apply too, so this is the cost of their playouts. Baseline, same run:
replaying the very same events with ``replay`` alone (the pure fold), so the figure shows
what deciding and listing legal actions cost on top of folding.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from shared.rules import replay
from shared.rules.playthrough import play_random_match

BEFORE = "176-220"  # docs/bot.md, "Engine speed"


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def run(matches: int, repeats: int) -> dict:
    recorded: list[list] = []

    def play() -> None:
        recorded.clear()
        for seed in range(matches):
            recorded.append(play_random_match(random.Random(seed))[1])

    def fold() -> None:
        for events in recorded:
            replay(events)

    play_times, fold_times = [], []
    for _ in range(repeats):
        play_times.append(_timed(play))
        fold_times.append(_timed(fold))
    events = sum(len(e) for e in recorded)
    return {
        "matches": matches,
        "events_per_match": round(events / matches, 1),
        "matches_per_s": [round(matches / t) for t in sorted(play_times, reverse=True)],
        "baseline_replay_events_per_s": [round(events / t) for t in sorted(fold_times, reverse=True)],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    result = run(args.matches, args.repeats)
    play, fold = result["matches_per_s"], result["baseline_replay_events_per_s"]
    print(f"rules engine, {args.matches} seeded random matches x {args.repeats} runs (median [min..max])")
    print(f"  events per match                 {result['events_per_match']}")
    print(f"  full matches/s (decide+evolve)   {statistics.median(play):>10,} [{play[0]:,}..{play[-1]:,}]")
    events_per_s = [round(m * result["events_per_match"]) for m in play]
    print(f"  events/s through decide          {statistics.median(events_per_s):>10,}")
    print(f"  baseline: replay-only events/s   {statistics.median(fold):>10,} [{fold[0]:,}..{fold[-1]:,}]")
    print(f"  (the engine before its playout work: {BEFORE} full matches/s on the reference machine; goal 1,000)")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(result, out, indent=2)


if __name__ == "__main__":
    main()
