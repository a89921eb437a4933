"""Projector throughput: a rebuild of every read model with 1 and with 2 worker processes.

The events are generated fast and written straight into the store: a few hundred random
matches are played with the rules engine, encoded once, and appended (one append per
match) under as many match ids as it takes to pass the event count asked for. The marks
those appends leave are cleared before any worker starts, so the workers only ever run the
rebuild (``services.projector.rebuild``: jobs of 25 matches on the rebuild queue, then the
final pass). The baseline is a plain decode-and-fold of the same streams in one process:
XRANGE and the one fold every reader uses (``shared.fold.fold``), and no write at all.
"""
from __future__ import annotations

import os
import random
import time
from dataclasses import replace
from typing import Any

from services.projector.queues import rebuild_queue
from services.projector.rebuild.full_rebuild import Rebuild, RebuildOptions
from shared.codec import encode
from shared.config import Config
from shared.eventstore import NewEvent, RedisEventStore
from shared.fold import FoldedMatch, fold
from shared.readmodels import ReadModels
from shared.rules.playthrough import play_random_match

from . import cpu
from .stack import Stack
from .stats import Figure, Spread

DISTINCT_MATCHES = 300  # played by the engine; the rest are copies under other ids
PLAYERS = 1000  # each match seats two of them, as a real scoreboard would have it


def _seated(events: list[NewEvent], match_id: str, players: tuple[int, int]) -> list[NewEvent]:
    """A copy of a played match under another id, between two players of the pool."""
    (a, b), (created, joined, *rest) = players, events
    created = replace(created, data={**created.data, "match_id": match_id, "creator_id": f"pl{a}"})
    joined = replace(joined, data={**joined.data, "player_id": f"pl{b}"})
    return [created, joined, *rest]


def generate(store: RedisEventStore, events_wanted: int, seed: int = 7) -> tuple[list[str], int]:
    """Append at least ``events_wanted`` events in whole matches; (match ids, events)."""
    rng = random.Random(seed)
    played = [[encode(e) for e in play_random_match(rng)[1]] for _ in range(DISTINCT_MATCHES)]
    match_ids, total = [], 0
    while total < events_wanted:
        match_id = f"bench{len(match_ids):06d}"
        events = _seated(played[len(match_ids) % len(played)], match_id, tuple(rng.sample(range(PLAYERS), 2)))
        store.append(match_id, events, 0)
        store.mark_projected(match_id, len(events))  # no catch-up: workers run the rebuild only
        match_ids.append(match_id)
        total += len(events)
    return match_ids, total


def plain_fold(store: RedisEventStore, match_ids: list[str]) -> float:
    """Seconds to read, decode and fold every match in this process (no writes)."""
    started = time.perf_counter()
    for match_id in match_ids:
        fold(FoldedMatch(match_id), store.read(match_id))
    return time.perf_counter() - started


def rebuild(stack: Stack, store: RedisEventStore, readmodels: ReadModels) -> dict[str, float]:
    """Run one rebuild on the stack's workers: its rate, and where its time and CPU went."""
    queue = rebuild_queue(stack.client(), Config.from_env(stack.env).queue_name)
    options = RebuildOptions(grace_seconds=0.0, stall_seconds=60.0)
    folded_at: list[float] = []  # when the workers had folded every match (before the final pass)
    progress = lambda done, total: folded_at.append(time.monotonic()) if done == total else None  # noqa: E731
    roles = {**stack.pids(), "bench": [os.getpid()]}
    before, started = cpu.snapshot(roles, alone=["bench"]), time.monotonic()
    report = Rebuild(store, readmodels, queue, options, progress=progress).run()
    used = cpu.spent(before, cpu.snapshot(roles, alone=["bench"]))
    wall = time.monotonic() - started
    return {
        "events_per_s": report.events_per_second, "workers": report.workers, "build_s": report.build_seconds,
        "fan_out_s": folded_at[-1] - started if folded_at else 0.0,
        "cores_busy": {role: round(seconds / wall, 2) for role, seconds in used.items()},
    }


def measure(events: int = 200_000, runs: int = 3) -> dict[str, Any]:
    """Rebuild events/s with 1 and 2 workers, and the plain fold's, run by run."""
    one, two, fold, details = [], [], [], []
    with Stack(workers=0) as stack:
        client = stack.client()
        store, readmodels = RedisEventStore(client), ReadModels(client)
        started = time.perf_counter()
        match_ids, total = generate(store, events)
        generated_s = time.perf_counter() - started
        plain_fold(store, match_ids[:200])  # warm the decoder's caches
        for _ in range(runs):
            fold.append(total / plain_fold(store, match_ids))
            for count, into in ((1, one), (2, two)):
                while len(stack.workers) < count:
                    stack.start_worker()
                while len(stack.workers) > count:
                    stack.stop_worker()
                stack.wait_for_workers(count)
                run = rebuild(stack, store, readmodels)
                if run["workers"] != count:
                    raise RuntimeError(f"the rebuild ran on {run['workers']} worker(s), not {count}")
                into.append(run["events_per_s"])
                details.append({"workers": count, **run})
    return {"events": total, "matches": len(match_ids), "generate_s": round(generated_s, 1),
            "one_worker": one, "two_workers": two, "plain_fold": fold, "rebuilds": details}


def figures(result: dict[str, Any]) -> list[Figure]:
    """Rebuild events/s with 1 worker beside the plain fold, and 2 workers beside 1."""
    one, two, fold = result["one_worker"], result["two_workers"], result["plain_fold"]
    label = f"{result['events'] / 1000:.0f}k events"
    scaling = Spread.of([b / a for a, b in zip(one, two)])
    share = Spread.of([a / f for a, f in zip(one, fold)])
    return [
        Figure(f"3. rebuild, 1 worker ({label})", Spread.of(one), "events/s", Spread.of(fold), "plain fold",
               share, "1 worker >= 0.25 x plain fold", share.median >= 0.25),
        Figure(f"3. rebuild, 2 workers ({label})", Spread.of(two), "events/s", Spread.of(one), "1 worker",
               scaling, "2 workers >= 1.6 x 1 worker", scaling.median >= 1.6),
    ]
