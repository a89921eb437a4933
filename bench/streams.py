"""Live streams: 5,000 spectators open against the API, each figure beside the same stack without them.

7. Delivery: the 5,000 viewers are spread over 50 matches (100 each); moves are made in a
   few of them, one at a time, and each is timed from sending the command until every
   viewer of its match has read the new view. Baseline: the same moves with 10 streams
   open, all on one match.
7. Command throughput (whole matches by N client processes, as in section 1) with the
   5,000 streams open and idle (nobody plays their matches; this process reads their
   keep-alives) against none; the order of the two windows alternates from run to run.
   Beside it, CPU per command (all processes, and the API's), and the API's CPU over an
   idle window of one keep-alive period (15 s) with the streams and without, in the first
   pair of windows only.
7. Memory: resident memory of the API's worker processes (gunicorn's children) before and
   after opening the streams, per stream; Redis connections (``CLIENT LIST``, this
   process's one included) with no stream and with 5,000.

The viewers are raw non-blocking sockets of this process (:mod:`bench.viewers`), which
raises its open-files limit to the hard limit first; should that be too low for 5,000,
fewer are opened and the figures say how many.
"""
from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from shared.config import Config

from .spectated import Spectated
from .stack import Stack
from .stats import Figure, Spread
from .throughput import play_matches, run_phase
from .viewers import allowed_viewers, close_viewers


def measure(viewers: int = 5000, matches: int = 50, clients: int = 4, seconds: float = 4.0, runs: int = 3,
            moves: int = 4, warmup: float = 2.0) -> dict[str, Any]:
    """The figures' raw runs: delivery, windows with and without the streams, openings."""
    viewers = allowed_viewers(viewers)
    matches = max(1, min(matches, viewers // 10))
    context = multiprocessing.get_context("fork")
    with Stack(workers=2) as stack, ProcessPoolExecutor(clients, mp_context=context) as pool:
        run_phase(pool, play_matches, stack, clients, warmup, seed=0)  # forks every client before any viewer
        spectated = Spectated(stack, viewers, matches)
        try:
            spectated.baseline(runs=2, moves=moves)
            for n in range(runs):
                for with_streams in (False, True) if n % 2 == 0 else (True, False):
                    if with_streams and not spectated.groups:
                        spectated.open()
                        spectated.deliver(runs=2, moves=moves)
                    elif not with_streams and spectated.groups:
                        spectated.close()
                    spectated.window(pool, clients, seconds, seed=n + 1, idle=n == 0)
        finally:
            for group in spectated.groups:
                close_viewers(group)
    result = spectated.result
    config = Config.from_env(stack.env)
    result.update(clients=clients, seconds=seconds, api_workers=config.api_workers,
                  redis_pool=config.redis_connections, max_streams=config.max_streams)
    return result


def figures(result: dict[str, Any]) -> list[Figure]:
    """Delivery beside 10 streams, throughput beside none, memory and Redis connections."""
    count, per, matches = result["viewers"], result["viewers"] // result["matches"], result["matches"]
    lines = _delivery(result, f"{count:,} streams, {per} per match on {matches}")
    none, opened = result["windows"]["none"], result["windows"]["open"]
    ratio = Spread.of([o["rate"] / n["rate"] for o, n in zip(opened, none)])
    lines.append(Figure(
        f"7. commands/s, {result['clients']} clients, {count:,} idle streams", Spread.of([o["rate"] for o in opened]),
        "cmd/s", Spread.of([n["rate"] for n in none]), "no stream", ratio, ">= 0.80 x no stream", ratio.median >= 0.80,
    ))
    for key, who in (("cpu_ms_per_command", "every process"), ("api_cpu_ms_per_command", "the API")):
        lines.append(Figure(
            f"7. CPU per command, {who}, {count:,} idle streams", Spread.of([o[key] for o in opened]), "ms",
            Spread.of([n[key] for n in none]), "no stream", Spread.of([o[key] / n[key] for o, n in zip(opened, none)]),
            fmt=".2f",
        ))
    idle = lambda side: Spread.of(result["idle_api_cpu_ms_per_s"][side])  # noqa: E731
    lines.append(Figure(f"7. API CPU while idle (15 s), {count:,} streams", idle("open"), "ms/s", idle("none"),
                        "no stream", fmt=".1f"))
    return lines + _footprint(result, count)


def _delivery(result: dict[str, Any], layout: str) -> list[Figure]:
    runs, base = result["delivery"], result["baseline_delivery"]
    lines = []
    for key in ("p50", "p99", "max"):
        value = Spread.of([run[key] for run in runs])
        target = "p99 <= 250 ms" if key == "p99" else ""
        lines.append(Figure(
            f"7. move to every viewer, {key} ({layout})", value, "ms", Spread.of([run[key] for run in base]),
            f"{result['baseline_viewers']} streams", target=target, met=value.median <= 250 if target else None,
        ))
    return lines


def _footprint(result: dict[str, Any], count: int) -> list[Figure]:
    openings, bound = result["openings"], result["api_workers"] * (result["redis_pool"] + 1)
    first = openings[:1]  # fresh workers: a later opening reuses memory the first left behind
    mb = lambda key: Spread.of([o[key] / 1024 for o in first])  # noqa: E731
    clients = lambda key: Spread.of([o[f"redis_clients_{key}"] for o in openings])  # noqa: E731
    ratio = lambda key: Spread.of([o["redis_clients_after"] / o[f"redis_clients_{key}"] for o in openings])  # noqa: E731
    grown = lambda key: max(o["redis_clients_after"] - o[f"redis_clients_{key}"] for o in openings)  # noqa: E731
    per_stream = Spread.of([(o["rss_kb_after"] - o["rss_kb_before"]) / o["streams"] for o in first])
    half = openings[0]["streams_half"]
    return [
        Figure(f"7. API workers' RSS, {count:,} streams (first opening)", mb("rss_kb_after"), "MB",
               mb("rss_kb_before"), "no stream"),
        Figure("7. memory per open stream (first opening)", per_stream, "KB/stream", fmt=".1f"),
        Figure(f"7. Redis connections, {count:,} streams", clients("after"), "", clients("before"), "no stream",
               ratio("before"), f"not with viewers: +{grown('before')} <= +{bound}", grown("before") <= bound),
        Figure(f"7. Redis connections, {count:,} streams", clients("after"), "", clients("half"),
               f"{half:,} streams", ratio("half")),
    ]
