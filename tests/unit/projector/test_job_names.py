"""Every job name the queues may hold resolves to the projector's function that runs it."""

from __future__ import annotations

import fakeredis

from services.api.catch_up_requests import catch_up_queue, enqueue_catch_up, enqueue_drain
from services.projector import drain, jobs
from services.projector.job_table import JOBS, ProjectorJob
from services.projector.queues import enqueue_rebuild, rebuild_queue
from shared import job_names


def test_every_name_resolves_to_its_function() -> None:
    assert JOBS == {
        job_names.CATCH_UP: jobs.catch_up, job_names.DRAIN: drain.drain, job_names.REBUILD_BATCH: jobs.rebuild_batch,
    }
    assert set(JOBS) == set(job_names.NAMES)


def test_the_jobs_each_side_queues_run_the_projector_s_functions(fake_redis: fakeredis.FakeRedis) -> None:
    queue = catch_up_queue(fake_redis, "projector")
    queued = [enqueue_catch_up(queue, "m1"), enqueue_drain(queue, 0),
              enqueue_rebuild(rebuild_queue(fake_redis, "projector"), ["m1"], 1)]
    found = [ProjectorJob.fetch(job.id, connection=fake_redis).func for job in queued]
    assert found == [jobs.catch_up, drain.drain, jobs.rebuild_batch]


def test_a_job_queued_under_its_old_dotted_path_still_runs(fake_redis: fakeredis.FakeRedis) -> None:
    queue = catch_up_queue(fake_redis, "projector")
    old = [queue.enqueue(path, "m1") for path in (
        "services.projector.jobs.catch_up", "services.projector.lanes.drain", "services.projector.jobs.rebuild_batch")]
    found = [ProjectorJob.fetch(job.id, connection=fake_redis).func for job in old]
    assert found == [jobs.catch_up, drain.drain, jobs.rebuild_batch]
