"""The cost of metrics and logs: whole matches on two stacks alike but for them, windows alternated.

One stack records every metric and logs JSON lines at INFO (one a command, to a file); the
other runs with ``METRICS=off`` and ``LOG_LEVEL=WARNING``. Both run at once, idle but for
their own windows, which alternate in order from run to run. Target: the full command path
keeps >= 95 % of its throughput with them on.
"""
from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from services.embedded_redis import free_port

from .stack import Stack
from .stats import Figure, Spread, percentile
from .throughput import compared, play_matches

ON = {"METRICS": "on", "LOG_FORMAT": "json", "LOG_LEVEL": "INFO"}
OFF = {"METRICS": "off", "LOG_FORMAT": "json", "LOG_LEVEL": "WARNING"}


def measure(clients: int = 4, seconds: float = 3.0, runs: int = 3, warmup: float = 1.5) -> dict[str, Any]:
    context = multiprocessing.get_context("fork")
    with (Stack(workers=2, env={**ON, "METRICS_PORT": str(free_port())}) as with_them,
          Stack(workers=2, env=OFF) as without, ProcessPoolExecutor(clients, mp_context=context) as pool):
        on, off = compared(pool, clients, seconds, runs, warmup, (play_matches, with_them), (play_matches, without))
    return {"clients": clients, "seconds": seconds, "on": on, "off": off}


def figures(result: dict[str, Any]) -> list[Figure]:
    on, off = result["on"], result["off"]
    ratio = Spread.of([a.rate / b.rate for a, b in zip(on, off)])
    return [
        Figure("10. commands/s, metrics + JSON logs on", Spread.of([p.rate for p in on]), "cmd/s",
               Spread.of([p.rate for p in off]), "METRICS=off", ratio, "on >= 0.95 x off", ratio.median >= 0.95),
        Figure("10. command p50, metrics + logs on", Spread.of([percentile(p.latencies, 50) * 1000 for p in on]),
               "ms", Spread.of([percentile(p.latencies, 50) * 1000 for p in off]), "METRICS=off", fmt=".2f"),
    ]
