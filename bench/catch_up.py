"""Live catch-ups with 1 and 2 workers: a backlog drained through the lanes, not the rebuild.

The workers are started first (registered with RQ, their sweep at start done on nothing),
then paused with SIGSTOP. Whole matches are appended to the store, each followed by the
catch-up request the API makes after an append (``shared.catch_up_lanes``): the lanes are as
many as the workers registered. The workers are resumed with SIGCONT, and the time until
no match is left unprojected and every lane is empty is the figure. The sweep is kept out
of it (``SWEEP_SECONDS`` far past the run), so every match is caught up by a drain job.
"""
from __future__ import annotations

import os
import random
import signal
import time
from typing import Any

from services.api.catch_up_requests import CatchUpRequests, catch_up_queue
from shared import keys
from shared.catch_up_lanes import MAX_LANES
from shared.codec import encode
from shared.eventstore import RedisEventStore
from shared.rules.playthrough import play_random_match

from . import cpu
from .projector import DISTINCT_MATCHES, PLAYERS, _seated
from .stack import Stack
from .stats import Figure, Spread

QUEUE = "projector"


def backlog(store: RedisEventStore, requests: CatchUpRequests, played: list[list], first: int, count: int,
            rng: random.Random) -> int:
    """Append ``count`` whole matches and ask for their catch-ups, as the API would; the events."""
    events = 0
    for n in range(first, first + count):
        match_id = f"lane{n:07d}"
        match = _seated(played[n % len(played)], match_id, tuple(rng.sample(range(PLAYERS), 2)))
        store.append(match_id, match, 0)
        requests.request(match_id)
        events += len(match)
    return events


def drained(stack: Stack, store: RedisEventStore, timeout: float = 300.0) -> float:
    """Resume the workers; seconds until no match is unprojected and no lane holds a request."""
    client = stack.client()
    started = time.monotonic()
    for worker in stack.workers:
        worker.send_signal(signal.SIGCONT)
    while store.unprojected_count() or _lanes_waiting(client):
        if time.monotonic() - started > timeout:
            raise RuntimeError(f"the backlog was not drained in {timeout:.0f} s")
        time.sleep(0.02)
    return time.monotonic() - started


def _lanes_waiting(client: Any) -> int:
    pipe = client.pipeline(transaction=False)
    for lane in range(MAX_LANES):
        pipe.scard(keys.lane_pending(QUEUE, lane))
    return sum(pipe.execute())


def one_run(stack: Stack, store: RedisEventStore, count: int, backlog_of: Any) -> dict[str, Any]:
    """With ``count`` workers registered and paused, file a backlog, resume them, time the drain."""
    while len(stack.workers) < count:
        stack.start_worker()
    while len(stack.workers) > count:
        stack.stop_worker()
    stack.wait_for_workers(count)
    time.sleep(1.0)  # their sweep at start is done
    for worker in stack.workers:
        worker.send_signal(signal.SIGSTOP)
    requests = CatchUpRequests(catch_up_queue(stack.client(), QUEUE))
    events = backlog_of(requests)
    roles = {**{f"worker-{n}": [worker.pid] for n, worker in enumerate(stack.workers)},
             "redis": stack.pids()["redis"], "bench": [os.getpid()]}
    before = cpu.snapshot(roles, alone=["bench"])
    seconds = drained(stack, store)
    used = cpu.spent(before, cpu.snapshot(roles, alone=["bench"]))
    return {"workers": count, "lanes": requests.count, "events": events, "seconds": round(seconds, 2),
            "loadavg": round(os.getloadavg()[0], 2),
            "cores_busy": {role: round(spent / seconds, 2) for role, spent in used.items()}}


def measure(matches: int = 1500, runs: int = 3) -> dict[str, Any]:
    """Seconds to drain ``matches`` whole matches of live catch-ups with 1 and 2 workers."""
    rng = random.Random(11)
    played = [[encode(e) for e in play_random_match(rng)[1]] for _ in range(DISTINCT_MATCHES)]
    one, two, details, filed = [], [], [], [0]

    def backlog_of(requests: CatchUpRequests) -> int:
        filed[0] += matches
        return backlog(store, requests, played, filed[0] - matches, matches, rng)

    stack = Stack(workers=0)
    stack.env["SWEEP_SECONDS"] = "3600"  # no sweep during a run: drains only
    with stack:
        store = RedisEventStore(stack.client())
        for _ in range(runs):
            for count, into in ((1, one), (2, two)):
                details.append(one_run(stack, store, count, backlog_of))
                into.append(matches / details[-1]["seconds"])
    return {"matches": matches, "one_worker": one, "two_workers": two, "runs": details}


def figures(result: dict[str, Any]) -> list[Figure]:
    """Matches caught up per second from a backlog with 2 workers, beside 1 worker."""
    one, two = result["one_worker"], result["two_workers"]
    scaling = Spread.of([b / a for a, b in zip(one, two)])
    return [
        Figure(f"8. live catch-up backlog, 2 workers ({result['matches']} matches)", Spread.of(two), "matches/s",
               Spread.of(one), "1 worker", scaling, "2 workers >= 1.6 x 1 worker", scaling.median >= 1.6),
    ]
