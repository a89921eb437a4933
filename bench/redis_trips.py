"""Redis round trips per request, by kind: one client alone, whole matches, request by request.

The API processes count every request they send to Redis (``services/api/round_trips.py``,
with ``BENCH_REFERENCE=1``); one client playing matches on its own reads the counters after
each of its requests, so the difference is that request's round trips (plus, rarely, a
background task's: the medians leave those out).
"""
from __future__ import annotations

import random
import statistics
from collections import defaultdict
from typing import Any

from services.api.round_trips import round_trips

from .player import MatchPlayer, plan_match
from .stack import Stack
from .wire import Http

ACTIONS = frozenset({"play", "raise", "accept", "reject", "fold"})


def by_kind(stack: Stack, matches: int = 3, seed: int = 7) -> dict[str, dict[str, Any]]:
    """``{kind: {"median", "min", "max", "requests"}}`` over ``matches`` whole matches (after one to warm up)."""
    http, rng, seen = Http(stack.api_port), random.Random(seed), defaultdict(list)
    last = [0]

    def record(kind: str, elapsed: float) -> None:
        now = round_trips(stack.data)
        seen["action" if kind in ACTIONS else kind].append(now - last[0])
        last[0] = now

    player = MatchPlayer(http, rng, record)
    for n in range(matches + 1):
        http.reconnect()  # one connection, so one API process, per match, as in the windows
        last[0] = round_trips(stack.data)
        player.play(plan_match(rng), until=float("inf"))
        if n == 0:
            seen.clear()  # the first match loads scripts and fills the caches
    http.close()
    return {kind: {"median": statistics.median(trips), "min": min(trips), "max": max(trips), "requests": len(trips)}
            for kind, trips in seen.items()}
