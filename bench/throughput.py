"""Command throughput: whole matches played by N client processes, beside the reference floor.

Windows of equal length on the same stack and Redis, strictly alternating: N processes
play whole matches through the API (register, create, join, actions with ``If-Match``),
then N processes hammer the benchmark-only ``POST /bench/reference/<stream>`` (a
marshmallow load and one atomic stream append), then the full path again, and so on, at
least 9 windows of each, each long enough for 2,000 commands. On a shared machine the
speed of one window says little; the median of many alternating pairs, and the CPU
seconds each role spent per command (from /proc, whatever else the machine runs), hold.
"""
from __future__ import annotations

import multiprocessing
import random
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from services.api.catch_up_requests import catch_up_queue
from services.api.round_trips import round_trips
from shared.config import Config
from shared.eventstore import RedisEventStore

from . import cpu, redis_trips
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
WINDOWS = 9  # of each side, at the least: the median of 9 pairs holds where one pair does not
MIN_COMMANDS = 2_000  # in every window: its length is set from the warm-up's rate, with a margin
GOAL_RATIO = 0.75  # figure 1: the full path's commands/s over the reference's, at the median of the window pairs
API_CPU_GOAL = 1.5  # ... and the API's CPU per command over the reference's
ROLES = ("api", "redis", "projector", "timer")  # the server's processes; the clients are counted apart


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
    round_trips: int = 0  # the API processes' Redis round trips over the phase (services/api/round_trips.py)
    redis_commands: int = 0  # total_commands_processed over the phase, every role's
    started: float = 0.0  # wall-clock time the window opened

    def per_command(self, amount: float) -> float:
        return amount / max(self.commands, 1)

    def cpu_ms(self, roles: tuple[str, ...] = ROLES) -> float:
        """CPU milliseconds per command of ``roles`` over the phase (window and drain)."""
        return self.per_command(sum(self.cpu.get(role, 0.0) for role in roles)) * 1000

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
    before, calls, trips, processed = cpu.snapshot(roles), _redis_calls(stack), round_trips(stack.data), \
        _processed(stack)
    phase = Phase(seconds, started=time.time())
    for future in futures:
        phase.merge(future.result())
    # The projection this window owes is part of its cost: count until the projector drained it.
    phase.drain_s = _drain(stack)
    phase.cpu = cpu.spent(before, cpu.snapshot(roles))
    phase.round_trips, phase.redis_commands = round_trips(stack.data) - trips, _processed(stack) - processed
    phase.redis_calls = {name: count - calls.get(name, 0) for name, count in _redis_calls(stack).items()
                         if count > calls.get(name, 0)}
    return phase


def _processed(stack: Stack) -> int:
    """Commands the stack's Redis has processed so far (INFO stats)."""
    return int(stack.client().info("stats")["total_commands_processed"])


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


def alternating(pool: ProcessPoolExecutor, clients: int, seconds: float, windows: int,
                first: Side, second: Side) -> tuple[list[Phase], list[Phase]]:
    """``windows`` windows of each side in strict alternation (first, second, first, ...).

    Should a window fall short of MIN_COMMANDS (the machine slowed down), the next ones are
    lengthened to the slowest rate seen; the ratios compare windows of a pair, always equal.
    """
    measured: tuple[list[Phase], list[Phase]] = ([], [])
    for n in range(1, windows + 1):
        for (target, stack), into in ((first, measured[0]), (second, measured[1])):
            into.append(run_phase(pool, target, stack, clients, seconds, seed=n))
        full, reference = measured[0][-1], measured[1][-1]
        print(f"    window pair {n}/{windows}, {seconds:.1f} s: {full.rate:,.0f} / {reference.rate:,.0f} cmd/s, "
              f"ratio {full.rate / reference.rate:.2f}", file=sys.stderr, flush=True)
        seconds = max(seconds, *(window_seconds(p, seconds) for p in (measured[0][-1], measured[1][-1])))
    return measured


def window_seconds(warmed: Phase, least: float, commands: int = MIN_COMMANDS) -> float:
    """A window long enough for ``commands`` at the warm-up's rate, with a margin of a quarter."""
    return round(max(least, 1.25 * commands / max(warmed.rate, 1.0)), 1)


def measure(clients: int = 4, seconds: float = 3.0, windows: int = WINDOWS, warmup: float = 2.0) -> dict[str, Any]:
    """Throughput, CPU per command by role and round trips of the full command path and of
    the reference, window by window; round trips by request kind, limits off and on."""
    context = multiprocessing.get_context("fork")
    with Stack(workers=2) as stack, ProcessPoolExecutor(clients, mp_context=context) as pool:
        run_phase(pool, play_matches, stack, clients, warmup, seed=0)  # cold: its rate would set windows too long
        run_phase(pool, hit_reference, stack, clients, warmup, seed=0)
        seconds = window_seconds(run_phase(pool, play_matches, stack, clients, warmup, seed=0), seconds)
        full, reference = alternating(pool, clients, seconds, windows, (play_matches, stack), (hit_reference, stack))
        trips = redis_trips.by_kind(stack)
    # Every limit counted and checked; the actions' rate raised so that one client may play on.
    with Stack(workers=1, env={"RATE_LIMITS": "on", "ACTIONS_PER_SECOND": "1000", "ACTIONS_BURST": "1000"}) as limited:
        trips_limited = redis_trips.by_kind(limited)
    return {"clients": clients, "seconds": seconds, "windows": windows, "full": full, "reference": reference,
            "round_trips": {"limits_off": trips, "limits_on": trips_limited}}


def figures(result: dict[str, Any]) -> list[Figure]:
    """Table lines, each the median of the windows beside the reference's (the ratios: of the
    window pairs): commands/s, CPU per command of each role, round trips and Redis commands
    per command, latency percentiles."""
    full, reference = result["full"], result["reference"]

    def beside(name: str, measure: Callable[[Phase], float], unit: str, fmt: str, **more: Any) -> Figure:
        return Figure(name, Spread.of([measure(f) for f in full]), unit, Spread.of([measure(r) for r in reference]),
                      "reference", fmt=fmt, **more)

    ratio = Spread.of([f.rate / r.rate for f, r in zip(full, reference)])
    lines = [beside(f"1. commands/s, {result['clients']} client processes, {len(full)} + {len(reference)} "
                    "alternating windows", lambda p: p.rate, "cmd/s", ",.0f", ratio=ratio,
                    target=f"full >= {GOAL_RATIO:.2f} x reference", met=ratio.median >= GOAL_RATIO, spread=True)]
    lines.append(beside(
        "1. CPU per command, server (API + Redis + projector + timer); ratio reference / full", Phase.cpu_ms, "ms",
        ".3f", ratio=Spread.of([r.cpu_ms() / f.cpu_ms() for f, r in zip(full, reference)]), spread=True))
    for role in (*ROLES, "clients"):
        lines.append(beside(f"1. CPU per command, {role}", lambda p, role=role: p.cpu_ms((role,)), "ms", ".3f",
                            spread=True))
    api = Spread.of([f.cpu_ms(("api",)) / r.cpu_ms(("api",)) for f, r in zip(full, reference)])
    lines.append(Figure("1. CPU per command, api: full / reference", api, "x", fmt=".2f",
                        target=f"<= {API_CPU_GOAL:.1f} x reference", met=api.median <= API_CPU_GOAL))
    lines.append(beside("1. Redis round trips per command, API", lambda p: p.per_command(p.round_trips), "", ".2f"))
    lines.append(beside("1. Redis commands per command, every role", lambda p: p.per_command(p.redis_commands),
                        "", ".2f"))
    for pct in (50, 99):
        lines.append(beside(f"1. command latency p{pct}", lambda p, pct=pct: percentile(p.latencies, pct) * 1000,
                            "ms", ".2f"))
    lines.append(beside("1. sustained cmd/s (window + projector drain)",
                        lambda p: p.commands / (p.seconds + p.drain_s), "cmd/s", ",.0f"))
    lines.append(Figure("1. whole matches/s", Spread.of([f.matches / f.seconds for f in full]), "matches/s",
                        fmt=".1f"))
    return lines


def details(result: dict[str, Any]) -> str:
    """Figure 1 window by window, and the round trips of each kind of request."""
    short = sum(p.commands < MIN_COMMANDS for p in (*result["full"], *result["reference"]))
    rows = [f"figure 1, window by window ({result['seconds']:.1f} s at first, {short} window(s) under "
            f"{MIN_COMMANDS:,} commands; CPU ms per command: API / Redis / projector, clients apart; "
            "round trips per command, API)"]
    def window(p: Phase) -> str:
        per_role = " / ".join(f"{p.cpu_ms((role,)):.3f}" for role in ("api", "redis", "projector"))
        return (f"{p.rate:>6,.0f}/s ({p.commands:,} cmds) {per_role}, clients {p.cpu_ms(('clients',)):.3f}, "
                f"{p.per_command(p.round_trips):.2f} trips")

    for n, (f, r) in enumerate(zip(result["full"], result["reference"]), start=1):
        rows.append(f"  {n:>2}  {f.seconds:.1f} s  full {window(f)}   reference {window(r)}   "
                    f"ratio {f.rate / r.rate:.2f}")
    for limits, kinds in result["round_trips"].items():
        said = ", ".join(f"{kind} {k['median']:g} [{k['min']}..{k['max']}] ({k['requests']})"
                         for kind, k in kinds.items())
        rows.append(f"Redis round trips per request, one client alone, {limits.replace('_', ' ')}: {said}")
    return "\n".join(rows)
