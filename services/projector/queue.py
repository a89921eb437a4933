"""The catch-up queue: how the command API asks the projector to fold a match.

The job is referenced by its dotted path, so enqueuing never imports the projector.
"""

from __future__ import annotations

from typing import Any

from rq import Queue
from rq.job import Job

from shared.eventstore.keys import validate_match_id

CATCH_UP_JOB = "services.projector.jobs.catch_up"
JOB_TIMEOUT_SECONDS = 60  # a catch-up folds one short match: minutes would mean it hangs
FAILURE_TTL_SECONDS = 7 * 24 * 3600  # keep failed jobs a week, to inspect them


def catch_up_queue(connection: Any, name: str) -> Queue:
    """The RQ queue the projector workers listen on (``Config.queue_name``)."""
    return Queue(name, connection=connection)


def enqueue_catch_up(queue: Queue, match_id: str, *, pipeline: Any = None) -> Job:
    """Ask for a catch-up of ``match_id``; with ``pipeline``, join the caller's transaction.

    Results are not kept (``result_ttl=0``): the read models are the result. Enqueuing
    one job per append is fine: a job folds everything new, so later ones find little.
    """
    return queue.enqueue(
        CATCH_UP_JOB,
        validate_match_id(match_id),
        job_timeout=JOB_TIMEOUT_SECONDS,
        result_ttl=0,
        failure_ttl=FAILURE_TTL_SECONDS,
        description=f"catch up match {match_id}",
        pipeline=pipeline,
    )
