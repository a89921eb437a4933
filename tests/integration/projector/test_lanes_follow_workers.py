"""Real workers started and stopped while the API's side asks for catch-ups: the lanes follow."""

from __future__ import annotations

import time

from rq import Queue

from services.api.catch_up_requests import CatchUpRequests
from shared import keys
from shared.catch_up_lanes import COUNT_SECONDS
from shared.codec import encode
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels
from tests.integration.projector.support import StartWorker, players_of
from tests.projector_support import random_match
from tests.waiting import wait_until


def play(store: RedisEventStore, requests: CatchUpRequests, first: int, count: int) -> dict[str, int]:
    """Append ``count`` whole matches and ask for their catch-ups, as the API does; their versions."""
    versions = {}
    for n in range(first, first + count):
        match_id = f"w{n}"
        events = random_match(n, match_id, players_of(n))
        store.append(match_id, [encode(event) for event in events], 0)
        requests.request(match_id)
        versions[match_id] = len(events)
    return versions


def caught_up(readmodels: ReadModels, versions: dict[str, int]) -> bool:
    return all(readmodels.projected_version(match_id) == version for match_id, version in versions.items())


def lanes_seen(requests: CatchUpRequests, expected: int) -> bool:
    time.sleep(COUNT_SECONDS)
    return requests.count == expected


def test_workers_started_and_stopped_at_runtime_change_the_lanes_and_strand_nothing(
    store: RedisEventStore, readmodels: ReadModels, queue: Queue, start_worker: StartWorker,
) -> None:
    requests = CatchUpRequests(queue)  # as the API holds it, for the whole test
    first = start_worker()
    versions = play(store, requests, 0, 6)
    assert requests.count == 1
    wait_until(lambda: caught_up(readmodels, versions), what="one worker")

    second = start_worker()
    wait_until(lambda: lanes_seen(requests, 2), what="a second lane")
    versions = play(store, requests, 10, 12)
    assert {requests.lane_of(match_id) for match_id in versions} == {0, 1}
    wait_until(lambda: caught_up(readmodels, versions), what="two workers")

    first.terminate()  # a warm shutdown unregisters the worker
    first.wait(30)  # a warm shutdown finishes the job in hand first: slow on a loaded machine
    wait_until(lambda: lanes_seen(requests, 1), what="one lane again")
    versions = play(store, requests, 30, 6)
    wait_until(lambda: caught_up(readmodels, versions), what="the remaining worker")

    second.kill()  # dies without unregistering: its registration outlives it
    second.wait(10)
    versions = play(store, requests, 40, 6)  # filed in lanes nobody runs for now
    start_worker()  # a newcomer takes the lanes over, its sweep aside (the periodic one is off)
    wait_until(lambda: caught_up(readmodels, versions), what="the newcomer")
    lanes = [keys.lane_pending(queue.name, lane) for lane in range(4)]
    wait_until(lambda: not any(queue.connection.scard(key) for key in lanes), what="the lanes to be drained")
