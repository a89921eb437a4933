"""The API's side of a catch-up: file the match in its lane, queue the lane's drain job with RQ.

What the lanes are and why: :mod:`shared.catch_up_lanes`. The job is asked for by its name
in :mod:`shared.job_names`; the projector runs it.
"""

from __future__ import annotations

from typing import Any

from rq import Queue, Worker
from rq.job import Job

from shared import job_names
from shared.catch_up_lanes import LaneRequests
from shared.keys import validate_match_id


def catch_up_queue(connection: Any, name: str) -> Queue:
    """The RQ queue the projector workers listen on (``Config.queue_name``)."""
    return Queue(name, connection=connection)


def rebuild_queue(connection: Any, name: str) -> Queue:
    """The queue of rebuild jobs beside the catch-up queue ``name`` (served after it)."""
    return Queue(job_names.rebuild_queue_name(name), connection=connection)


class CatchUpRequests(LaneRequests):
    """The lanes of one catch-up queue, as the API asks for catch-ups."""

    def __init__(self, queue: Queue, count: int = 0) -> None:
        """``count`` pins the number of lanes; 0 follows the workers listening to ``queue``."""
        self.queue = queue
        super().__init__(queue.connection, queue.name, lambda: Worker.count(queue=queue),
                         lambda lane: enqueue_drain(queue, lane), count)


def enqueue_catch_up(queue: Queue, match_id: str, *, pipeline: Any = None) -> Job:
    """Queue a catch-up of ``match_id`` as a job of its own; with ``pipeline``, join the
    caller's transaction. The API asks through the catch-up lanes instead; this is one
    match by hand, e.g. after a fix.

    Results are not kept (``result_ttl=0``): the read models are the result. Running it
    again is harmless: a job folds everything new, so later ones find little.
    """
    return _enqueue_live(queue, job_names.CATCH_UP, validate_match_id(match_id), f"catch up match {match_id}",
                         pipeline)


def enqueue_drain(queue: Queue, lane: int) -> Job:
    """Ask for a catch-up lane to be drained."""
    return _enqueue_live(queue, job_names.DRAIN, int(lane), f"drain catch-up lane {lane}")


def _enqueue_live(queue: Queue, job: str, argument: Any, description: str, pipeline: Any = None) -> Job:
    """Queue a live catch-up job: short, no result kept (the read models are the result)."""
    return queue.enqueue(
        job, argument, job_timeout=job_names.JOB_TIMEOUT_SECONDS, result_ttl=0,
        failure_ttl=job_names.FAILURE_TTL_SECONDS, description=description, pipeline=pipeline,
    )
