"""A racing client process: acts on shared matches as fast as it can, always with If-Match.

Run by ``multiprocessing`` in separate processes, so the races are real (separate
interpreters, separate connections), not threads taking turns under one GIL.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any

from tests.reliability.play import Player, act, pick_action, view
from tests.reliability.stack import TimedHttp


@dataclass(frozen=True)
class Shot:
    """One action a racer sent, and what came back."""

    racer: int
    match: str
    base: int  # the version the racer acted on (its If-Match)
    status: int
    version: int | None  # 200: the new version; 412: the version the match was at
    events: tuple[tuple[int, str, str], ...] = ()  # 200: (version, type, at) of each event recorded


@dataclass(frozen=True)
class RaceOrder:
    """What one racer is asked to do."""

    url: str
    matches: dict[str, dict[str, Player]]  # match id -> seat -> player
    racer: int
    start_at: float  # time.time() at which every racer fires its first shot
    deadline: float  # time.time() after which it stops


def race(order: RaceOrder) -> list[Shot]:
    """Play random legal actions on the matches until they are finished or the deadline passes."""
    http, rng = TimedHttp(order.url), random.Random(order.racer)
    known = dict.fromkeys(order.matches, 0)  # the latest version this racer heard of
    finished: set[str] = set()
    shots: list[Shot] = []
    time.sleep(max(0.0, order.start_at - time.time()))
    while len(finished) < len(order.matches) and time.time() < order.deadline:
        match_id = rng.choice(sorted(set(order.matches) - finished))
        seats = order.matches[match_id]
        views = {seat: view(http, match_id, player.token, known[match_id], wait=2) for seat, player in seats.items()}
        base = min(seen["version"] for seen in views.values())
        if views["A"]["status"] == "finished":
            finished.add(match_id)
            continue
        if any(seen["version"] != base for seen in views.values()):
            continue  # read across a write: look again
        picked = pick_action(views, rng)
        if picked is None:
            continue
        seat, action = picked
        reply = act(http, match_id, seats[seat], action, if_match=base)
        shots.append(_shot(order.racer, match_id, base, reply.status, reply.body))
        known[match_id] = max(known[match_id], shots[-1].version or 0)
    return shots


def _shot(racer: int, match_id: str, base: int, status: int, body: Any) -> Shot:
    if status == 200:
        events = tuple((event["version"], event["type"], event["at"]) for event in body["events"])
        return Shot(racer, match_id, base, status, body["version"], events)
    version = body.get("version") if isinstance(body, dict) else None
    return Shot(racer, match_id, base, status, version)
