"""Replays that cost what they show: ``/replay`` at the last version of the longest match R33
allows, beside ``/replay`` at version 10 of the same match, and the plain fold of before.

The match (``shared.rules.void_rounds``, target 100): 400 void rounds, each redealt, raised
six times and spoiled three times, some 10,000 events, written into the stack's store. Per
run a new such match: its first replay at the last version is timed alone (cold: the API
process folds it once, page by page off its event loop, keeping a checkpoint every 64
versions); then replays at the last version and at version 10 alternate over one kept-alive
connection, and their p50s are the figure (target: within 3x). Beside them, in this process
and the same run: the same replays from checkpoints without HTTP, and what a replay cost
before checkpoints, one unpaged read of the first N events and a fold from version 0.
"""
from __future__ import annotations

import statistics
import time
import uuid
from collections.abc import Callable
from typing import Any

from shared.checkpoints import Checkpoints
from shared.codec import encode
from shared.eventstore import RedisEventStore
from shared.fold import PAGE_SIZE, FoldedMatch, fold
from shared.rules import MatchState, replay_view
from shared.rules.void_rounds import void_match

from .stack import Stack
from .stats import Figure, Spread
from .wire import Http

ROUNDS, TARGET = 400, 100  # R33: a match ends after 4 x target rounds, and 100 is the highest target
EARLY = 10


def _stored(store: RedisEventStore) -> tuple[str, int]:
    """A new longest match in ``store``: its id and last version."""
    match_id = f"replay-{uuid.uuid4().hex[:12]}"
    events = void_match(match_id, ROUNDS, TARGET)
    for start in range(0, len(events), PAGE_SIZE):
        store.append(match_id, [encode(event) for event in events[start:start + PAGE_SIZE]], start)
    return match_id, len(events)


def _plain(store: RedisEventStore, match_id: str, version: int, now: MatchState) -> dict[str, Any]:
    """A replay as it was before checkpoints: the first ``version`` events read at once, folded from 0."""
    then = fold(FoldedMatch(match_id), store.read(match_id, limit=version))
    return replay_view(then.state, None, now)


def _checkpointed(checkpoints: Checkpoints, store: RedisEventStore, match_id: str, version: int,
                  now: MatchState) -> dict[str, Any]:
    """The same replay in this process, from checkpoints (what the API runs, without HTTP)."""
    return replay_view(checkpoints.at(store, match_id, version).state, None, now)


def _timed(call: Callable[..., Any], *args: Any) -> float:
    started = time.perf_counter()
    call(*args)
    return time.perf_counter() - started


def _run(http: Http, store: RedisEventStore, samples: int) -> dict[str, Any]:
    match_id, last = _stored(store)
    replay = lambda version: http.expect(200, "GET", f"/matches/{match_id}/replay?version={version}")  # noqa: E731
    cold = replay(last)[1]
    late, early = [], []
    for _ in range(samples):
        late.append(replay(last)[1])
        early.append(replay(EARLY)[1])
    now, checkpoints = fold(FoldedMatch(match_id), store.read(match_id)).state, Checkpoints()
    checkpoints.at(store, match_id, last)  # made once, as the API's process made its own
    here: dict[str, list[float]] = {"kept_late": [], "kept_early": [], "plain_late": [], "plain_early": []}
    for _ in range(samples):
        for name, version in (("late", last), ("early", EARLY)):
            here[f"kept_{name}"].append(_timed(_checkpointed, checkpoints, store, match_id, version, now))
    for _ in range(max(3, samples // 8)):  # apart: a quarter of a second each at the last version, and its garbage
        for name, version in (("late", last), ("early", EARLY)):
            here[f"plain_{name}"].append(_timed(_plain, store, match_id, version, now))
    return {"events": last, "cold_s": cold, "late_p50": statistics.median(late), "early_p50": statistics.median(early),
            **{f"{name}_p50": statistics.median(times) for name, times in here.items()}}


def measure(runs: int = 3, samples: int = 40) -> dict[str, Any]:
    """Per run, a new longest match: its cold replay, then p50s at its last version and at version 10."""
    with Stack(workers=0, api_workers=1) as stack:  # nothing to project; one process: every replay meets it
        http, store = Http(stack.api_port), RedisEventStore(stack.client())
        results = [_run(http, store, samples) for _ in range(runs)]
        http.close()
    return {"samples": samples, "runs": results}


def figures(result: dict[str, Any]) -> list[Figure]:
    """The last version's p50 beside version 10's; the plain fold of before beside it; the cold replay."""
    runs = result["runs"]
    ms = lambda key: Spread.of([run[key] * 1000 for run in runs])  # noqa: E731
    ratio = Spread.of([run["late_p50"] / run["early_p50"] for run in runs])
    before = Spread.of([run["plain_late_p50"] / run["plain_early_p50"] for run in runs])
    kept = Spread.of([run["kept_late_p50"] / run["kept_early_p50"] for run in runs])
    events = f"{min(run['events'] for run in runs):,}"
    return [
        Figure(f"11. replay p50 at the last version ({events} events)", ms("late_p50"), "ms", ms("early_p50"),
               f"at version {EARLY}", ratio, "ratio <= 3", ratio.median <= 3, fmt=".2f"),
        Figure("11. in-process, from checkpoints, last version", ms("kept_late_p50"), "ms", ms("kept_early_p50"),
               f"at version {EARLY}", kept, fmt=".2f"),
        Figure("11. before: plain fold from 0, last version", ms("plain_late_p50"), "ms", ms("plain_early_p50"),
               f"at version {EARLY}", before, fmt=".2f"),
        Figure("11. first (cold) replay at the last version", ms("cold_s"), "ms", fmt=".0f"),
    ]
