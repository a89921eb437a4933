"""The projector's queues in RQ: the ones its workers serve, and the jobs it queues itself.

Jobs are queued by their names in :mod:`shared.job_names` (a drain's successor, a lane
adopted, a rebuild's batches); the workers resolve them (:mod:`services.projector.jobs`).

A worker can die between taking a job off its queue and registering it as started (RQ
does those in separate steps): that job is then in neither place and no registry shows
it. Only whoever waits for the job can notice; :func:`lost_jobs` tells the rebuild which
of its jobs are in that state.
"""

from __future__ import annotations

from typing import Any

from rq import Queue, Worker
from rq.job import Job, JobStatus

from shared import job_names
from shared.job_names import FAILURE_TTL_SECONDS, JOB_TIMEOUT_SECONDS, REBUILD_SUFFIX
from shared.keys import validate_match_id


def catch_up_queue(connection: Any, name: str) -> Queue:
    """The RQ queue the projector workers listen on (``Config.queue_name``)."""
    return Queue(name, connection=connection)


def rebuild_queue(connection: Any, name: str) -> Queue:
    """The queue of rebuild jobs beside the catch-up queue ``name`` (served after it)."""
    return Queue(job_names.rebuild_queue_name(name), connection=connection)


def enqueue_drain(queue: Queue, lane: int) -> Job:
    """Ask for a catch-up lane to be drained (see :mod:`shared.catch_up_lanes`)."""
    return _enqueue_live(queue, job_names.DRAIN, int(lane), f"drain catch-up lane {lane}")


def _enqueue_live(queue: Queue, job: str, argument: Any, description: str) -> Job:
    """Queue a live catch-up job: short, no result kept (the read models are the result)."""
    return queue.enqueue(
        job, argument, job_timeout=JOB_TIMEOUT_SECONDS, result_ttl=0,
        failure_ttl=FAILURE_TTL_SECONDS, description=description,
    )


def enqueue_rebuild(queue: Queue, match_ids: list[str], generation: int) -> Job:
    """Ask for ``match_ids`` to be folded from their first event into ``generation``."""
    return queue.enqueue(
        job_names.REBUILD_BATCH,
        [validate_match_id(match_id) for match_id in match_ids],
        generation,
        job_timeout=job_names.REBUILD_JOB_TIMEOUT_SECONDS,
        result_ttl=job_names.REBUILD_RESULT_TTL_SECONDS,
        failure_ttl=FAILURE_TTL_SECONDS,
        description=f"rebuild {len(match_ids)} match(es) into read-model generation {generation}",
    )


def registered_workers(queue: Queue) -> int:
    """How many workers listen to ``queue``."""
    return len(Worker.all(queue=queue))


def outdated_workers(rebuild_queue: Queue) -> list[str]:
    """Workers on the catch-up queue that do not serve the rebuild queue.

    They run code from before generations: they would keep writing only the plain keys
    of generation 0, so reads would stop moving once they switch to another one.
    """
    catch_up_name = rebuild_queue.name.removesuffix(REBUILD_SUFFIX)
    return [
        worker.name for worker in Worker.all(connection=rebuild_queue.connection)
        if catch_up_name in worker.queue_names() and rebuild_queue.name not in worker.queue_names()
    ]


_WAITING = {JobStatus.QUEUED, JobStatus.STARTED}


def lost_jobs(queue: Queue, job_ids: list[str]) -> set[str]:
    """Those of ``job_ids`` still waiting to run yet neither queued nor started anywhere.

    A live worker passes through that state for a few milliseconds between dequeuing a
    job and starting it, so a caller requeues only a job found lost twice, seconds apart.
    """
    if not job_ids:
        return set()
    placed = set(queue.get_job_ids()) | set(queue.started_job_registry.get_job_ids(cleanup=False))
    return {
        job_id for job_id, job in zip(job_ids, Job.fetch_many(job_ids, connection=queue.connection))
        if job is not None and job_id not in placed and job.get_status(refresh=False) in _WAITING
    }


def requeue(queue: Queue, job_ids: set[str]) -> None:
    """Queue ``job_ids`` again, at the front (the projector's jobs are idempotent)."""
    for job in Job.fetch_many(sorted(job_ids), connection=queue.connection):
        if job is not None:
            queue.enqueue_job(job, at_front=True)
