"""The projector's queues, as whoever asks for work sees them: the API, the CLI, a rebuild.

Jobs are referenced by their dotted path, so asking for one never imports the projector
(the paths are part of the contract: jobs already queued must stay runnable). Workers
listen to the catch-up queue first and the rebuild queue second (RQ serves its queues in
order), so live catch-ups never wait behind a rebuild's backlog.

A worker can die between taking a job off its queue and registering it as started (RQ
does those in separate steps): that job is then in neither place and no registry shows
it. Only whoever waits for the job can notice; :func:`lost_jobs` tells the rebuild which
of its jobs are in that state.
"""

from __future__ import annotations

from typing import Any

from rq import Queue, Worker
from rq.job import Job, JobStatus

from shared.keys import validate_match_id

CATCH_UP_JOB = "services.projector.jobs.catch_up"
DRAIN_JOB = "services.projector.lanes.drain"
REBUILD_JOB = "services.projector.jobs.rebuild_batch"
JOB_TIMEOUT_SECONDS = 60  # a catch-up folds one short match: minutes would mean it hangs
REBUILD_JOB_TIMEOUT_SECONDS = 600  # a batch of matches, folded from their first event
REBUILD_RESULT_TTL_SECONDS = 3600  # the rebuild polls its jobs' status and reads their result
FAILURE_TTL_SECONDS = 7 * 24 * 3600  # keep failed jobs a week, to inspect them
REBUILD_SUFFIX = "-rebuild"  # the rebuild queue is named after the catch-up queue


def catch_up_queue(connection: Any, name: str) -> Queue:
    """The RQ queue the projector workers listen on (``Config.queue_name``)."""
    return Queue(name, connection=connection)


def rebuild_queue(connection: Any, name: str) -> Queue:
    """The queue of rebuild jobs beside the catch-up queue ``name`` (served after it)."""
    return Queue(f"{name}{REBUILD_SUFFIX}", connection=connection)


def enqueue_catch_up(queue: Queue, match_id: str, *, pipeline: Any = None) -> Job:
    """Queue a catch-up of ``match_id`` as a job of its own; with ``pipeline``, join the
    caller's transaction. The API asks through the catch-up lanes instead (see
    :mod:`shared.catchup`); this is one match by hand, e.g. after a fix.

    Results are not kept (``result_ttl=0``): the read models are the result. Running it
    again is harmless: a job folds everything new, so later ones find little.
    """
    return _enqueue_live(queue, CATCH_UP_JOB, validate_match_id(match_id), f"catch up match {match_id}", pipeline)


def enqueue_drain(queue: Queue, lane: int) -> Job:
    """Ask for a catch-up lane to be drained (see :mod:`shared.catchup`)."""
    return _enqueue_live(queue, DRAIN_JOB, int(lane), f"drain catch-up lane {lane}")


def _enqueue_live(queue: Queue, job: str, argument: Any, description: str, pipeline: Any = None) -> Job:
    """Queue a live catch-up job: short, no result kept (the read models are the result)."""
    return queue.enqueue(
        job,
        argument,
        job_timeout=JOB_TIMEOUT_SECONDS,
        result_ttl=0,
        failure_ttl=FAILURE_TTL_SECONDS,
        description=description,
        pipeline=pipeline,
    )


def enqueue_rebuild(queue: Queue, match_ids: list[str], generation: int) -> Job:
    """Ask for ``match_ids`` to be folded from their first event into ``generation``."""
    return queue.enqueue(
        REBUILD_JOB,
        [validate_match_id(match_id) for match_id in match_ids],
        generation,
        job_timeout=REBUILD_JOB_TIMEOUT_SECONDS,
        result_ttl=REBUILD_RESULT_TTL_SECONDS,
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
