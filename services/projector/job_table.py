"""The jobs a projector worker runs, by the names the queues hold (:mod:`shared.job_names`).

RQ imports a job's function from its name; the queues hold plain names instead, so the
projector's workers run :class:`ProjectorJob`, which looks the name up here first. A job
queued by an older release under the function's dotted path still runs (RQ's own lookup).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rq.job import Job

from services.projector import jobs, lanes
from shared import job_names

JOBS: dict[str, Callable[..., Any]] = {
    job_names.CATCH_UP: jobs.catch_up,
    job_names.DRAIN: lanes.drain,
    job_names.REBUILD_BATCH: jobs.rebuild_batch,
}


class ProjectorJob(Job):
    """An RQ job whose function is found by its name in ``JOBS``, else by RQ's dotted path."""

    @property
    def func(self) -> Any:
        return JOBS.get(self.func_name) or Job.func.fget(self)
