"""Jobs left behind by a worker that died: which ones are lost, and queuing them again."""

from __future__ import annotations

import fakeredis
from rq import SimpleWorker

from services.projector.catchup.projector_context import ProjectorContext
from services.projector.job_table import ProjectorJob
from services.projector.queues import enqueue_rebuild, lost_jobs, rebuild_queue, requeue


def test_only_a_job_dequeued_and_never_started_is_lost(
    fake_redis: fakeredis.FakeRedis, process_context: ProjectorContext,
) -> None:
    queue = rebuild_queue(fake_redis, "projector")
    finished, taken, started, queued = (enqueue_rebuild(queue, [f"m{n}"], 1) for n in range(4))
    worker = SimpleWorker([queue], connection=fake_redis, job_class=ProjectorJob)
    fake_redis.lpop(queue.key)
    worker.execute_job(ProjectorJob.fetch(finished.id, connection=fake_redis), queue)  # as the worker fetches it
    assert fake_redis.lpop(queue.key).decode() == taken.id  # a worker took it, then died
    fake_redis.lpop(queue.key)
    worker.prepare_execution(started)  # running on a live worker
    assert finished.get_status() == "finished"
    assert lost_jobs(queue, [finished.id, taken.id, started.id, queued.id, "no-such-job"]) == {taken.id}


def test_a_requeued_job_waits_at_the_front_of_its_queue(fake_redis: fakeredis.FakeRedis) -> None:
    queue = rebuild_queue(fake_redis, "projector")
    taken, other = enqueue_rebuild(queue, ["m1"], 1), enqueue_rebuild(queue, ["m2"], 1)
    fake_redis.lpop(queue.key)
    requeue(queue, {taken.id})
    assert queue.get_job_ids() == [taken.id, other.id]
    assert lost_jobs(queue, [taken.id, other.id]) == set()
