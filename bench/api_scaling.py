"""Figure 12: the command side scaled by API processes, and what one core of each role serves.

The same whole matches as figure 1 (4 client processes), against three stacks that differ
only in their count of API processes (1, 2, 4; two projector workers each), windows taken in
turn (1, 2, 4, 1, 2, 4, ...) so a drift of the machine's speed favours none. On this 2-core
machine the clients, Redis and the projector share the cores with the API, so more processes
than cores cannot add throughput; the CPU per command says what more cores would: one API
core serves 1,000 / (API ms per command) commands a second, one Redis core 1,000 / (Redis ms
per command) appends (one append per command), and their quotient is how many API cores one
Redis shard keeps busy (docs/capacity.md).
"""
from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack
from typing import Any

from .stack import Stack
from .stats import Figure, Spread
from .throughput import Phase, play_matches, run_phase

PROCESSES = (1, 2, 4)


def measure(clients: int = 4, seconds: float = 3.0, runs: int = 3, warmup: float = 2.0) -> dict[str, Any]:
    """Windows of whole matches on a stack of each count of API processes, in turn, after a warm-up of each."""
    context = multiprocessing.get_context("fork")
    with ExitStack() as opened, ProcessPoolExecutor(clients, mp_context=context) as pool:
        stacks = {n: opened.enter_context(Stack(workers=2, api_workers=n)) for n in PROCESSES}
        for stack in stacks.values():
            run_phase(pool, play_matches, stack, clients, warmup, seed=0)
        phases: dict[int, list[Phase]] = {n: [] for n in PROCESSES}
        for run in range(1, runs + 1):
            for n, stack in stacks.items():
                phases[n].append(run_phase(pool, play_matches, stack, clients, seconds, seed=run))
    return {"clients": clients, "seconds": seconds, "phases": phases}


def figures(result: dict[str, Any]) -> list[Figure]:
    """Commands/s by API processes beside one process's, and each role's commands per core."""
    phases, lines = result["phases"], []
    alone = phases[PROCESSES[0]]
    for n in PROCESSES:
        lines.append(Figure(
            f"12. commands/s, {n} API process{'es' if n > 1 else ''} ({result['clients']} clients)",
            Spread.of([p.rate for p in phases[n]]), "cmd/s", Spread.of([p.rate for p in alone]), "1 process",
            ratio=Spread.of([p.rate / one.rate for p, one in zip(phases[n], alone)])))
    every = [p for n in PROCESSES for p in phases[n]]
    api = Spread.of([1000 / p.cpu_ms(("api",)) for p in every])
    redis = Spread.of([1000 / p.cpu_ms(("redis",)) for p in every])
    lines.append(Figure("12. commands/s one API core serves (1,000 / API ms per command)", api, "cmd/s"))
    lines.append(Figure("12. appends/s one Redis core serves (1,000 / Redis ms per command)", redis, "appends/s"))
    lines.append(Figure("12. API cores one Redis shard keeps busy", Spread.of(
        [p.cpu_ms(("api",)) / p.cpu_ms(("redis",)) for p in every]), "cores", fmt=".1f"))
    return lines
