"""The catch-up lanes follow the live workers, and no request is stranded when they change."""

from __future__ import annotations

import random

import fakeredis
import pytest
from rq import SimpleWorker, worker_registration

from services.api.catch_up_requests import CatchUpRequests
from services.projector import lanes as lanes_module
from services.projector.catchup.projector_context import ProjectorContext
from services.projector.drain import drain
from services.projector.job_table import ProjectorJob
from services.projector.lanes import BATCH, CatchUpLanes, adopt_lanes
from services.projector.queues import catch_up_queue
from shared import catch_up_lanes as catchup_module
from shared import keys
from shared.eventstore import RedisEventStore
from tests.projector_support import store_matches


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(catchup_module.time, "monotonic", clock)
    return clock


@pytest.fixture
def queue(fake_redis: fakeredis.FakeRedis):
    return catch_up_queue(fake_redis, "projector")


def start_workers(queue, count: int) -> list[SimpleWorker]:
    """Register ``count`` workers of ``queue`` as RQ does when a worker starts."""
    workers = [SimpleWorker([queue], connection=queue.connection, job_class=ProjectorJob) for _ in range(count)]
    for worker in workers:
        worker_registration.register(worker)
    return workers


def stop(worker: SimpleWorker) -> None:
    worker_registration.unregister(worker)


def test_the_lanes_are_as_many_as_the_workers_listening_to_the_queue(queue, clock: Clock) -> None:
    requests = CatchUpRequests(queue)
    workers = start_workers(queue, 3)
    assert requests.count == 3
    workers += start_workers(queue, 2)
    assert requests.count == 3  # read again only after COUNT_SECONDS
    clock.now += catchup_module.COUNT_SECONDS
    assert requests.count == 5
    stop(workers.pop())
    clock.now += catchup_module.COUNT_SECONDS
    assert requests.count == 4


def test_without_workers_the_last_count_stays_and_a_pinned_count_ignores_them(queue, clock: Clock) -> None:
    requests = CatchUpRequests(queue)
    assert requests.count == 1  # none ever seen
    workers = start_workers(queue, 2)
    clock.now += catchup_module.COUNT_SECONDS
    assert requests.count == 2
    for worker in workers:
        stop(worker)
    clock.now += catchup_module.COUNT_SECONDS
    assert requests.count == 2  # for the workers that come back
    assert CatchUpRequests(queue, count=3).count == 3
    assert CatchUpRequests(queue, count=1000).count == catchup_module.MAX_LANES


def test_a_worker_started_at_runtime_gets_a_lane_of_its_own(queue, clock: Clock) -> None:
    requests = CatchUpRequests(queue)
    start_workers(queue, 1)
    match_ids = [f"m{n}" for n in range(40)]
    assert sum(requests.request(match_id) for match_id in match_ids) == 1
    start_workers(queue, 1)
    clock.now += catchup_module.COUNT_SECONDS
    for match_id in match_ids:
        requests.request(match_id)
    assert sorted(job.args for job in queue.get_jobs()) == [(0,), (1,)]  # a drain each


def test_a_lane_holding_requests_and_no_job_is_adopted_by_a_worker(queue) -> None:
    lanes = CatchUpLanes(queue, count=4)
    match_ids = [f"m{n}" for n in range(40)]
    for match_id in match_ids:
        lanes.request(match_id)
    queue.empty()  # the drain jobs were lost (a dead worker, a flushed queue) ...
    for lane in range(4):
        queue.connection.delete(keys.lane_armed(queue.name, lane))  # ... and their arms expired
    adopt_lanes(queue)
    assert sorted(job.args for job in queue.get_jobs()) == [(0,), (1,), (2,), (3,)]
    assert lanes.adopt() == []  # armed now: nothing more to adopt


def test_a_lane_whose_adopted_drain_cannot_be_queued_is_left_unarmed_for_the_next_try(
    queue, monkeypatch: pytest.MonkeyPatch,
) -> None:
    lanes = CatchUpLanes(queue, count=1)
    lanes.request("m1")
    queue.empty()
    queue.connection.delete(keys.lane_armed(queue.name, 0))  # the job lost, its arm expired

    def unreachable(*_: object) -> None:
        raise ConnectionError("the queue's Redis is gone")

    monkeypatch.setattr(lanes_module, "enqueue_drain", unreachable)
    with pytest.raises(ConnectionError):
        lanes.adopt()
    assert not queue.connection.exists(keys.lane_armed(queue.name, 0))  # no arm without a job
    monkeypatch.undo()
    assert lanes.adopt() == [0] and [job.args for job in queue.get_jobs()] == [(0,)]


def test_a_drain_with_a_backlog_spreads_it_over_the_lanes_of_the_current_count(
    store: RedisEventStore, context: ProjectorContext, queue,
) -> None:
    filed = CatchUpLanes(queue, count=1)  # the backlog was filed while one worker ran
    match_ids = [f"x{n}" for n in range(3 * BATCH)]
    for match_id in match_ids:
        filed.request(match_id)
    queue.empty()
    now = CatchUpLanes(queue, count=3)  # three workers now
    moved = now.spread(0)
    assert moved == sum(now.lane_of(match_id) != 0 for match_id in match_ids) > BATCH
    assert sorted(job.args for job in queue.get_jobs()) == [(1,), (2,)]
    assert sum(now.waiting(lane) for lane in range(3)) == len(match_ids)
    assert all(now.lane_of(m) == lane for lane in range(3) for m in _members(queue, lane))


def test_a_drain_spreads_once_and_catches_up_its_own_share(
    store: RedisEventStore, context: ProjectorContext, queue,
) -> None:
    real = store_matches(store, 3)
    filed = CatchUpLanes(queue, count=1)
    for match_id in [*real, *(f"x{n}" for n in range(2 * BATCH))]:
        filed.request(match_id)
    queue.empty()
    now = CatchUpLanes(queue, count=2)
    drain(0, now, context, patience_seconds=0)
    assert now.waiting(1) > 0 and (1,) in [job.args for job in queue.get_jobs()]  # lane 1's drain queued
    assert all(now.lane_of(match_id) == 0 for match_id in _members(queue, 0))  # lane 0 kept its own only


def test_no_request_is_stranded_whatever_the_workers_do(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, process_context: ProjectorContext, queue,
) -> None:
    """Workers come and go while matches are requested; whatever lane each was filed in,
    the drains and one maintenance pass leave every lane empty and every match caught up."""
    rng, most_lanes = random.Random(5), 6
    match_ids, requested = store_matches(store, 12), set()
    for _ in range(30):
        lanes = CatchUpRequests(queue, count=rng.randint(1, most_lanes))  # API processes that disagree
        match_id = rng.choice(match_ids)
        requested.add(match_id)
        lanes.request(match_id)
        if rng.random() < 0.3:
            queue.empty()  # jobs lost
        if rng.random() < 0.3:
            fake_redis.delete(*(keys.lane_armed(queue.name, lane) for lane in range(most_lanes)))  # arms expired
    adopt_lanes(queue)
    SimpleWorker([queue], connection=fake_redis, job_class=ProjectorJob).work(burst=True)
    assert all(CatchUpLanes(queue, count=1).waiting(lane) == 0 for lane in range(catchup_module.MAX_LANES))
    assert len(requested) > 5 and not requested & set(store.unprojected())


def _members(queue, lane: int) -> list[str]:
    return [m.decode() for m in queue.connection.smembers(keys.lane_pending(queue.name, lane))]
