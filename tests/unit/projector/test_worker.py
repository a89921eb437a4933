"""Jobs through the RQ queue, and the worker's sweep of matches whose job was lost."""

from __future__ import annotations

import fakeredis
import redis
from rq import Queue, SimpleWorker
from rq.job import Job

from services.api.catch_up_requests import catch_up_queue, enqueue_catch_up
from services.projector.catchup.catching_up import fresh_views
from services.projector.catchup.projector_context import ProjectorContext
from services.projector.job_table import ProjectorJob
from services.projector.worker import build_worker
from shared.config import Config
from shared.eventstore import NewEvent, RedisEventStore
from shared.job_names import CATCH_UP as CATCH_UP_JOB
from shared.job_names import FAILURE_TTL_SECONDS, JOB_TIMEOUT_SECONDS
from shared.readmodels import ReadModels
from shared.readmodels.parked import ParkedMatches
from tests.projector_support import store_matches


def config(sweep_seconds: int = 30) -> Config:
    return Config.from_env({"REDIS_URL": "redis://unused:6379/0", "SWEEP_SECONDS": str(sweep_seconds)})


def test_a_job_through_the_queue_catches_its_match_up(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, readmodels: ReadModels,
    process_context: ProjectorContext,
) -> None:
    (match_id,) = store_matches(store, 1)
    queue = catch_up_queue(fake_redis, "projector")
    job = enqueue_catch_up(queue, match_id)
    assert (job.func_name, job.args) == (CATCH_UP_JOB, (match_id,))
    assert (job.result_ttl, job.timeout, job.failure_ttl) == (0, JOB_TIMEOUT_SECONDS, FAILURE_TTL_SECONDS)

    assert SimpleWorker([queue], connection=fake_redis, job_class=ProjectorJob).work(burst=True)
    assert readmodels.summary(match_id) == fresh_views(store, match_id).summary
    assert list(store.unprojected()) == []


def test_an_enqueue_can_join_the_callers_transaction(fake_redis: fakeredis.FakeRedis) -> None:
    queue = catch_up_queue(fake_redis, "projector")
    pipe = fake_redis.pipeline()
    pipe.multi()
    enqueue_catch_up(queue, "m1", pipeline=pipe)
    assert queue.count == 0
    pipe.execute()
    assert queue.count == 1


def test_the_worker_sweeps_matches_whose_job_was_lost_when_it_starts(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, readmodels: ReadModels,
    context: ProjectorContext,
) -> None:
    match_ids = store_matches(store, 3)  # appended, never enqueued
    build_worker(config(), connection=fake_redis, context=context).work(burst=True)
    assert list(store.unprojected()) == []
    for match_id in match_ids:
        assert readmodels.summary(match_id) == fresh_views(store, match_id).summary


def test_a_failing_match_neither_stops_the_sweep_nor_loses_its_mark(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, readmodels: ReadModels,
    context: ProjectorContext,
) -> None:
    store.append("bad", [NewEvent("from_the_future", {})], 0)
    store_matches(store, 2)
    worker = build_worker(config(), connection=fake_redis, context=context)
    assert worker.sweep() == 2
    assert list(store.unprojected()) == ["bad"]
    assert readmodels.projected_version("m0") and readmodels.projected_version("m1")


class UnreachableReadModels(ReadModels):
    """Read models whose Redis fails to write any view (a transient failure: the match is not to blame)."""

    def write_match(self, *args, **kwargs) -> bool:
        raise redis.ConnectionError("views cannot be written")


class UnwritableReadModels(ReadModels):
    """Read models that refuse to write any view, and would refuse again on a retry."""

    def write_match(self, *args, **kwargs) -> bool:
        raise ValueError("views cannot be written")


def _catch_up_failing_with(readmodels: type, fake_redis: fakeredis.FakeRedis, store: RedisEventStore,
                           context: ProjectorContext) -> tuple[str, Queue, Job]:
    """One stored match, its catch-up job run by a worker whose read models are ``readmodels``."""
    (match_id,) = store_matches(store, 1)
    context.readmodels = readmodels(fake_redis)
    queue = catch_up_queue(fake_redis, "projector")
    job = enqueue_catch_up(queue, match_id)
    SimpleWorker([queue], connection=fake_redis, job_class=ProjectorJob).work(burst=True)
    return match_id, queue, job


def test_a_failed_job_is_kept_to_be_inspected(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, process_context: ProjectorContext,
) -> None:
    match_id, queue, job = _catch_up_failing_with(UnreachableReadModels, fake_redis, store, process_context)
    assert job.id in queue.failed_job_registry.get_job_ids()
    assert ParkedMatches(fake_redis).get(match_id) is None


def test_a_job_whose_views_cannot_be_written_parks_its_match(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, process_context: ProjectorContext,
) -> None:
    match_id, queue, job = _catch_up_failing_with(UnwritableReadModels, fake_redis, store, process_context)
    assert job.id not in queue.failed_job_registry.get_job_ids()
    parked = ParkedMatches(fake_redis).get(match_id)
    assert parked is not None and "ValueError: views cannot be written" in parked.error
    assert list(store.unprojected()) == [match_id]  # its events are not projected, and the lag says so


def test_the_worker_sweeps_on_its_period_and_wakes_up_in_time_for_it(
    fake_redis: fakeredis.FakeRedis,
) -> None:
    for sweep_seconds in (1, 2, 30, 300):
        worker = build_worker(config(sweep_seconds), connection=fake_redis)
        assert worker.maintenance_interval == sweep_seconds
        assert worker.dequeue_timeout <= max(1, sweep_seconds // 2)
        assert worker.queue_names() == ["projector", "projector-rebuild"]  # catch-ups first
