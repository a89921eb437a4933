"""Clocks: how late timeouts fire, and what running clocks cost an idle server.

5. Lateness: matches created with ``turn_seconds: 5`` and left alone; the timer process
   records each one's timeout. Lateness is the stored time of ``turn_timed_out`` minus
   the deadline it names. Baseline in the same run: one clock alone.
6. Idle CPU: the whole stack (Redis, the API, the timer, the projector workers) over an
   idle window, with 5,000 open matches whose clocks run (a week each, so none fires
   meanwhile) against none. Target: the same within noise — idle matches must cost nothing.
"""
from __future__ import annotations

import time
from typing import Any

from shared.codec import decode
from shared.eventstore import RedisEventStore
from shared.rules.events import TurnTimedOut

from . import cpu
from .player import register
from .stack import Stack
from .stats import Figure, Spread, percentile
from .wire import Http

SHORT_TURN = 5  # the rules' least turn_seconds
WEEK = 604_800


def _open_matches(http: Http, count: int, turn_seconds: int) -> list[str]:
    """``count`` playing matches between two players, nobody acting in them."""
    a, b = register(http, lambda *_: None), register(http, lambda *_: None)
    match_ids = []
    for _ in range(count):
        created, _ = http.expect(201, "POST", "/matches", body={"rules": {"turn_seconds": turn_seconds}}, token=a)
        http.expect(200, "POST", f"/matches/{created['id']}/join", body={"accept_custom": True}, token=b)  # a 5 s clock
        match_ids.append(created["id"])
    return match_ids


def _lateness_ms(store: RedisEventStore, match_ids: list[str], wait_s: float) -> list[float]:
    """Each match's first timeout's lateness; waits up to ``wait_s`` for them all to fire."""
    deadline, late = time.monotonic() + wait_s, {}
    while len(late) < len(match_ids) and time.monotonic() < deadline:
        for match_id in match_ids:
            if match_id not in late:
                for stored in store.read(match_id, after=3):
                    event = decode(stored)
                    if isinstance(event, TurnTimedOut):
                        late[match_id] = stored.at - event.deadline
                        break
        time.sleep(0.5)
    return list(late.values())


def lateness(clocks: int) -> dict[str, float]:
    with Stack(workers=2) as stack:
        http = Http(stack.api_port, timeout=30)
        match_ids = _open_matches(http, clocks, SHORT_TURN)
        late = _lateness_ms(RedisEventStore(stack.client()), match_ids, SHORT_TURN + 30)
    return {"clocks": clocks, "fired": len(late), "p50": percentile(late, 50), "p99": percentile(late, 99)}


def idle_cpu(matches: int, window_s: float) -> dict[str, float]:
    """CPU seconds of the whole stack over ``window_s`` idle, before and after opening ``matches``."""
    with Stack(workers=2) as stack:
        time.sleep(5.0)  # settle after start (workers register, gunicorn warms up)
        before = _idle_window(stack, window_s)
        _open_matches(Http(stack.api_port, timeout=30), matches, WEEK)
        time.sleep(5.0)  # the projector catches up with the creations
        after = _idle_window(stack, window_s)
    return {"matches": matches, "window_s": window_s, "none": before, "open": after}


def _idle_window(stack: Stack, window_s: float) -> float:
    first = cpu.snapshot(stack.pids())
    time.sleep(window_s)
    return sum(cpu.spent(first, cpu.snapshot(stack.pids())).values())


def measure(clocks: int = 1000, idle_matches: int = 5000, window_s: float = 10.0, runs: int = 2) -> dict[str, Any]:
    return {
        "lateness": [{"one": lateness(1), "many": lateness(clocks)} for _ in range(runs)],
        "idle": [idle_cpu(idle_matches, window_s) for _ in range(runs)],
    }


def figures(result: dict[str, Any]) -> list[Figure]:
    """Lateness with many clocks beside one; idle CPU with open matches beside none."""
    late, idle = result["lateness"], result["idle"]
    many = late[0]["many"]["clocks"]
    p50, one50 = Spread.of([r["many"]["p50"] for r in late]), Spread.of([r["one"]["p50"] for r in late])
    p99, one99 = Spread.of([r["many"]["p99"] for r in late]), Spread.of([r["one"]["p99"] for r in late])
    opened, none = Spread.of([r["open"] for r in idle]), Spread.of([r["none"] for r in idle])
    ratio = Spread.of([r["open"] / max(r["none"], 1e-3) for r in idle])
    window, matches = idle[0]["window_s"], idle[0]["matches"]
    return [
        Figure(f"5. timeout lateness p50 ({many:,} clocks)", p50, "ms", one50, "1 clock", fmt=",.0f"),
        Figure(f"5. timeout lateness p99 ({many:,} clocks)", p99, "ms", one99, "1 clock",
               target="p99 <= 1,000 ms", met=p99.median <= 1000, fmt=",.0f"),
        Figure(f"6. idle CPU of the stack, {window:.0f} s ({matches:,} open matches)", opened, "s", none,
               "no match", ratio=ratio, target="same within noise", fmt=".2f"),
    ]
