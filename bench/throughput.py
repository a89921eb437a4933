"""Command throughput: whole matches played by N client processes, beside the reference floor.

Each run has two phases of equal length on the same stack and Redis: N processes play
whole matches through the API (register, create, join, actions with ``If-Match``), and N
processes hammer the benchmark-only ``POST /bench/reference/<stream>`` (a marshmallow
load and one atomic stream append). The phases alternate in order from run to run, so a
drift of the machine's speed does not favour either side.
"""
from __future__ import annotations

import multiprocessing
import random
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from services.api.catch_up_requests import catch_up_queue
from shared.config import Config
from shared.eventstore import RedisEventStore

from . import cpu
from .player import MatchPlayer, plan_match
from .stack import Stack
from .stats import Figure, Spread, percentile
from .wire import Http

_START_DELAY = 1.0  # seconds for every process to connect before the window opens
# Clients open a new connection for every match (~75 commands), and the reference clients
# every 75 requests: which gunicorn process accepts a kept-alive connection is left to
# chance, and 4 connections for a whole window often all landed on one process, whose GIL
# then capped the window at ~1.3 of the 2 cores. Reconnecting averages that out.
COMMANDS_PER_CONNECTION = 75
PLANNED_MATCHES = 16  # more than a client plays in one window (~10 in 4 s); more are planned as needed


@dataclass
class Phase:
    """What the processes of one phase did inside the measured window."""

    seconds: float
    commands: int = 0
    matches: int = 0
    latencies: list[float] = field(default_factory=list)
    cpu: dict[str, float] = field(default_factory=dict)  # CPU seconds by role over the phase
    redis_calls: dict[str, int] = field(default_factory=dict)  # Redis commands by name over the phase
    drain_s: float = 0.0  # after the window, until the projector had folded every event appended in it

    @property
    def rate(self) -> float:
        return self.commands / self.seconds

    def merge(self, part: dict[str, Any]) -> None:
        self.commands += part["commands"]
        self.matches += part["matches"]
        self.latencies += part["latencies"]


def play_matches(port: int, seed: int, start_at: float, seconds: float) -> dict[str, Any]:
    """Client process: play whole matches in the window [start_at, start_at + seconds)."""
    http, latencies, matches, rng = Http(port), [], 0, random.Random(seed)
    player = MatchPlayer(http, rng, lambda kind, elapsed: latencies.append(elapsed))
    plans = [plan_match(rng) for _ in range(PLANNED_MATCHES)]  # before the window: see bench.player
    time.sleep(max(0.0, start_at - time.time()))
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        http.reconnect()  # each match on a connection of its own (see COMMANDS_PER_CONNECTION)
        matches += player.play(plans.pop() if plans else plan_match(rng), until)
    http.close()
    return {"commands": len(latencies), "matches": matches, "latencies": latencies}


def hit_reference(port: int, index: int, start_at: float, seconds: float) -> dict[str, Any]:
    """Client process: post action bodies to the reference endpoint for the window."""
    http, latencies = Http(port), []
    time.sleep(max(0.0, start_at - time.time()))
    until, path = time.monotonic() + seconds, f"/bench/reference/p{index}"
    while time.monotonic() < until:
        if len(latencies) % COMMANDS_PER_CONNECTION == 0:
            http.reconnect()
        latencies.append(http.expect(200, "POST", path, body={"type": "play", "card": "7H"})[1])
    http.close()
    return {"commands": len(latencies), "matches": 0, "latencies": latencies}


def run_phase(pool: ProcessPoolExecutor, target, stack: Stack, clients: int, seconds: float, seed: int) -> Phase:
    """Run ``target`` in ``clients`` processes over one window; their merged figures."""
    start_at = time.time() + _START_DELAY
    futures = [pool.submit(target, stack.api_port, seed * 1000 + i, start_at, seconds) for i in range(clients)]
    roles = {**stack.pids(), "clients": list(pool._processes)}  # the pool's process ids
    time.sleep(max(0.0, start_at - time.time()))
    before, calls = cpu.snapshot(roles), _redis_calls(stack)
    phase = Phase(seconds)
    for future in futures:
        phase.merge(future.result())
    # The projection this window owes is part of its cost: count until the projector drained it.
    phase.drain_s = _drain(stack)
    phase.cpu = cpu.spent(before, cpu.snapshot(roles))
    phase.redis_calls = {name: count - calls.get(name, 0) for name, count in _redis_calls(stack).items()
                         if count > calls.get(name, 0)}
    return phase


def _drain(stack: Stack, timeout: float = 120.0) -> float:
    """Seconds until no catch-up is queued and no match is unprojected: the next phase starts clean."""
    client = stack.client()
    queue = catch_up_queue(client, Config.from_env(stack.env).queue_name)
    store, started = RedisEventStore(client), time.monotonic()
    while queue.count or next(iter(store.unprojected()), None) is not None:
        if time.monotonic() - started > timeout:
            raise RuntimeError(f"the projector did not catch up within {timeout:.0f} s")
        time.sleep(0.02)
    return time.monotonic() - started


def _redis_calls(stack: Stack) -> dict[str, int]:
    """Commands served by the stack's Redis so far, by name (INFO commandstats)."""
    stats = stack.client().info("commandstats")
    return {name.removeprefix("cmdstat_"): int(value["calls"]) for name, value in stats.items()}


Side = tuple[Callable[..., dict[str, Any]], Stack]  # what the client processes run, and against which stack


def compared(pool: ProcessPoolExecutor, clients: int, seconds: float, runs: int, warmup: float,
             first: Side, second: Side) -> tuple[list[Phase], list[Phase]]:
    """A warm-up window on each side, then ``runs`` windows of each, the side that goes first
    changing from run to run, so that a drift of the machine's speed favours neither."""
    for target, stack in (first, second):
        run_phase(pool, target, stack, clients, warmup, seed=0)
    measured: tuple[list[Phase], list[Phase]] = ([], [])
    for n in range(1, runs + 1):
        pair = [(first, measured[0]), (second, measured[1])]
        for (target, stack), into in reversed(pair) if n % 2 else pair:
            into.append(run_phase(pool, target, stack, clients, seconds, seed=n))
    return measured


def measure(clients: int = 4, seconds: float = 8.0, runs: int = 3, warmup: float = 2.0) -> dict[str, Any]:
    """Throughput and latency of the full command path and of the reference, run by run."""
    context = multiprocessing.get_context("fork")
    with Stack(workers=2) as stack, ProcessPoolExecutor(clients, mp_context=context) as pool:
        full, reference = compared(pool, clients, seconds, runs, warmup,
                                   (play_matches, stack), (hit_reference, stack))
    return {"clients": clients, "seconds": seconds, "full": full, "reference": reference}


def figures(result: dict[str, Any]) -> list[Figure]:
    """Table lines: commands/s beside the reference, and the latency percentiles."""
    full, reference = result["full"], result["reference"]
    ratio = Spread.of([f.rate / r.rate for f, r in zip(full, reference)])
    lines = [Figure(
        f"1. commands/s, {result['clients']} client processes", Spread.of([f.rate for f in full]), "cmd/s",
        Spread.of([r.rate for r in reference]), "reference", ratio, "full >= 0.60 x reference",
        ratio.median >= 0.60,
    )]
    for pct in (50, 99):
        lines.append(Figure(
            f"1. command latency p{pct}", Spread.of([percentile(f.latencies, pct) * 1000 for f in full]), "ms",
            Spread.of([percentile(r.latencies, pct) * 1000 for r in reference]), "reference", fmt=".2f",
        ))
    cpu_ms = lambda phase: sum(phase.cpu.values()) / max(phase.commands, 1) * 1000  # noqa: E731
    lines.append(Figure(
        "1. CPU per command, every process", Spread.of([cpu_ms(f) for f in full]), "ms",
        Spread.of([cpu_ms(r) for r in reference]), "reference", fmt=".2f",
    ))
    sustained = lambda phase: phase.commands / (phase.seconds + phase.drain_s)  # noqa: E731
    lines.append(Figure(
        "1. sustained cmd/s (window + projector drain)", Spread.of([sustained(f) for f in full]), "cmd/s",
        Spread.of([sustained(r) for r in reference]), "reference",
    ))
    lines.append(Figure("1. whole matches/s", Spread.of([f.matches / f.seconds for f in full]), "matches/s",
                        fmt=".1f"))
    return lines
