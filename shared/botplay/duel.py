"""Duels: whole matches between two strategies through the engine's step, measured.

Match ``i`` of a duel seeded ``S`` is fixed by ``(S, i)``: its deals, its first dealer and
both strategies' random draws. The first strategy sits A in even matches and B in odd
ones, and the first dealer alternates every two matches, so each strategy meets each seat
and dealer equally. Matches run in worker processes and each result is appended to a file
as it comes, so a duel that stops resumes where it was.

Per strategy a result counts its decisions and their times, its raises (and remainders),
its bluffs (a request made with the odds of its cards below even, ``zoo.outlook``) and its
folds (a raise or remainder rejected, or a fold).
"""
from __future__ import annotations

import json
import math
import multiprocessing
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shared.rules import INITIAL, CreateMatch, JoinMatch, Seat, Status, command_for, step, view
from shared.rules.chance import RandomChance

from .levels import strategy_for
from .zoo import outlook

MAX_ACTIONS = 5_000  # a match longer than this is a strategy that never ends it: stop


@dataclass
class Tally:
    """One strategy's side of one match."""

    decisions: int = 0
    raises: int = 0
    bluffs: int = 0
    folds: int = 0
    seconds: list[float] = field(default_factory=list)


def play_match(first: str, second: str, seed: int, index: int) -> dict[str, Any]:
    """Match ``index`` of the duel ``first`` vs ``second`` seeded ``seed``, as a JSON-ready record."""
    rng = random.Random(f"{seed}:{index}:deals")
    first_seat = Seat.A if index % 2 == 0 else Seat.B
    dealer = Seat.B if (index // 2) % 2 == 0 else Seat.A
    names = {first_seat: first, first_seat.other: second}
    # The search's cap counts this thread's CPU time: a loaded machine slows a duel, never weakens it.
    players = {seat: strategy_for(names[seat], f"{seed}:{index}:{seat.value}", clock=time.thread_time)
               for seat in names}
    tallies = {seat: Tally() for seat in names}
    chance = RandomChance(rng)
    state = step(INITIAL, CreateMatch("duel", "a", first_dealer=dealer), chance).state
    state = step(state, JoinMatch("b"), chance).state
    for _ in range(MAX_ACTIONS):
        if state.status is Status.FINISHED:
            break
        seat, action = _next_move(state, players, tallies)
        state = step(state, command_for(seat, action), chance).state
    return {
        "index": index, "first_won": state.winner is first_seat, "rounds": state.rounds_dealt,
        "points": [state.scores[first_seat.index], state.scores[first_seat.other.index]],
        "tallies": [_tally_json(tallies[first_seat]), _tally_json(tallies[first_seat.other])],
    }


def _next_move(state, players, tallies) -> tuple[Seat, dict]:
    for seat in (Seat.A, Seat.B):
        shown = view(state, seat)
        started = time.thread_time()
        action = players[seat](shown)
        if action is not None:
            _count(tallies[seat], shown, action, time.thread_time() - started)
            return seat, action
    raise RuntimeError("neither strategy moved in a playing match")


def _count(tally: Tally, shown: dict, action: dict, seconds: float) -> None:
    tally.decisions += 1
    tally.seconds.append(seconds)
    if action["type"] in ("raise", "remainder") and shown["round"]["pending"] is None:
        tally.raises += 1
        tally.bluffs += outlook(shown) < 0.5
    elif action["type"] in ("reject", "fold"):
        tally.folds += 1


def _tally_json(tally: Tally) -> dict[str, Any]:
    return {"decisions": tally.decisions, "raises": tally.raises, "bluffs": tally.bluffs, "folds": tally.folds,
            "ms": [round(s * 1000, 2) for s in tally.seconds]}


def _job(args: tuple[str, str, int, int]) -> dict[str, Any]:
    return play_match(*args)


def run(first: str, second: str, matches: int, seed: int, workers: int, results: Path) -> list[dict[str, Any]]:
    """Play the duel's matches not yet in ``results`` (JSON lines), appending each as it ends."""
    done = {record["index"]: record for record in _read(results, first, second, seed)}
    todo = [(first, second, seed, index) for index in range(matches) if index not in done]
    results.parent.mkdir(parents=True, exist_ok=True)
    with results.open("a") as out:
        if not results.stat().st_size:
            out.write(json.dumps({"duel": [first, second], "seed": seed}) + "\n")
        for record in _played(todo, workers):
            out.write(json.dumps(record) + "\n")
            out.flush()
            done[record["index"]] = record
    return [done[index] for index in range(matches)]


def _played(todo: list, workers: int) -> Iterator[dict[str, Any]]:
    if workers <= 1 or len(todo) <= 1:
        yield from map(_job, todo)
        return
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        yield from pool.imap_unordered(_job, todo)


def _read(results: Path, first: str, second: str, seed: int) -> list[dict[str, Any]]:
    if not results.exists() or not results.stat().st_size:
        return []
    lines = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
    if lines[0] != {"duel": [first, second], "seed": seed}:
        raise ValueError(f"{results} holds another duel: {lines[0]}")
    return lines[1:]


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95 % by default)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Win rate of the first strategy with its interval; per side: points per match, raises,
    bluffs and folds per round, milliseconds per decision (p50, p99)."""
    n, wins = len(records), sum(r["first_won"] for r in records)
    rounds = sum(r["rounds"] for r in records) or 1
    sides = []
    for side in (0, 1):
        tallies = [r["tallies"][side] for r in records]
        ms = [m for t in tallies for m in t["ms"]]
        sides.append({
            "points_per_match": sum(r["points"][side] for r in records) / max(n, 1),
            **{f"{what}_per_round": sum(t[what] for t in tallies) / rounds for what in ("raises", "bluffs", "folds")},
            "ms_p50": _percentile(ms, 0.5), "ms_p99": _percentile(ms, 0.99), "decisions": len(ms),
        })
    low, high = wilson(wins, n)
    return {"matches": n, "wins": wins, "win_rate": wins / max(n, 1), "wilson95": [low, high], "sides": sides}
