"""Projection lag under steady load: from an acknowledged action to its read model.

N client processes play whole matches at a fixed pace (``rate`` actions per second each).
After each action is acknowledged (HTTP 200), the client waits until the version of the
match's read model reaches the version the action returned; the lag is the time from the
acknowledgement to that moment. Rather than polling (which would load the very machine it
measures), the client subscribes to Redis keyspace notifications of the match's views
hash (enabled on the benchmark's own Redis) and reads the version when the projector
writes it. The baseline is the latency of the actions themselves, in the same run.
"""
from __future__ import annotations

import multiprocessing
import random
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import redis

from shared import keys
from shared.readmodels import ReadModels

from .player import MatchPlayer, choose
from .stack import Stack
from .stats import Figure, Spread, percentile
from .wire import Http

GIVE_UP_SECONDS = 5.0  # a lag this long is recorded as is, and the client moves on


class ViewWatch:
    """Waits for a match's read model to reach a version, woken by keyspace notifications."""

    def __init__(self, client: redis.Redis, generation: int) -> None:
        self._client, self._generation = client, generation
        self._pubsub = client.pubsub(ignore_subscribe_messages=True)
        self._key = ""

    def watch(self, match_id: str) -> None:
        """Follow ``match_id`` from now on (and no other match)."""
        if self._key:
            self._pubsub.unsubscribe(f"__keyspace@0__:{self._key}")
        self._key = keys.match_views(match_id, self._generation)
        self._pubsub.subscribe(f"__keyspace@0__:{self._key}")

    def wait(self, version: int, timeout: float = GIVE_UP_SECONDS) -> None:
        """Return once the views are at ``version`` or later (or ``timeout`` passed)."""
        deadline = time.perf_counter() + timeout
        while int(self._client.hget(self._key, "version") or 0) < version:
            left = deadline - time.perf_counter()
            if left <= 0:
                return
            self._pubsub.get_message(timeout=left)  # any write to the views hash wakes us


def paced_player(port: int, redis_url: str, seed: int, start_at: float, seconds: float, rate: float) -> dict:
    """Client process: play at ``rate`` actions/s; each action's latency and projection lag."""
    http, rng, client = Http(port), random.Random(seed), redis.Redis.from_url(redis_url)
    views = ViewWatch(client, ReadModels(client).generation())  # a fresh stack: no rebuild meanwhile
    latencies: list[float] = []
    lags: list[float] = []
    player = MatchPlayer(http, rng, lambda kind, elapsed: latencies.append(elapsed) if kind not in
                         ("register", "create", "join") else None)
    time.sleep(max(0.0, start_at - time.time()))
    # Clients start out of phase, so their actions do not arrive in bursts.
    next_at = time.monotonic() + rng.random() / rate
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        player.start()
        views.watch(player.match_id)
        while not player.finished and time.monotonic() < until:
            time.sleep(max(0.0, next_at - time.monotonic()))
            next_at += 1 / rate
            version = player.act(*choose(player.state, rng))["version"]
            acked = time.perf_counter()
            views.wait(version)
            lags.append(time.perf_counter() - acked)
    http.close()
    return {"lags": lags, "latencies": latencies}


def measure(clients: int = 4, rate: float = 25.0, seconds: float = 8.0, runs: int = 3) -> dict[str, Any]:
    """Lag and action latency percentiles, run by run, at ``clients * rate`` actions/s."""
    results = []
    context = multiprocessing.get_context("fork")
    with Stack(workers=2) as stack, ProcessPoolExecutor(clients, mp_context=context) as pool:
        stack.client().config_set("notify-keyspace-events", "Kh")  # hash writes, for ViewWatch
        for n in range(runs + 1):  # the first run warms everything up and is not kept
            start_at = time.time() + 1.0
            futures = [pool.submit(paced_player, stack.api_port, stack.redis_url, n * 100 + i, start_at,
                                   seconds if n else 2.0, rate) for i in range(clients)]
            lags, latencies = [], []
            for future in futures:
                part = future.result()
                lags += part["lags"]
                latencies += part["latencies"]
            if n:
                results.append({"actions": len(lags), "lag_p50": percentile(lags, 50), "lag_p99": percentile(lags, 99),
                                "lag_max": max(lags), "act_p50": percentile(latencies, 50),
                                "act_p99": percentile(latencies, 99)})
    return {"clients": clients, "rate": rate, "seconds": seconds, "runs": results}


def figures(result: dict[str, Any]) -> list[Figure]:
    """Lag p50 and p99 beside the actions' own latency."""
    runs = result["runs"]
    load = f"{result['clients'] * result['rate']:.0f} actions/s"
    ms = lambda key: Spread.of([run[key] * 1000 for run in runs])  # noqa: E731
    p99 = ms("lag_p99")
    return [
        Figure(f"4. projection lag p50 ({load})", ms("lag_p50"), "ms", ms("act_p50"), "action p50", fmt=".1f"),
        Figure(f"4. projection lag p99 ({load})", p99, "ms", ms("act_p99"), "action p99",
               target="p99 <= 50 ms", met=p99.median <= 50, fmt=".1f"),
    ]
