"""The jobs a projector worker runs, by the names the queues hold (:mod:`shared.job_names`).

RQ imports a job's function from its name; the queues hold plain names instead, so the
projector's workers run :class:`ProjectorJob`, which looks the name up here. A job queued
by an older release under the function's dotted path (``services.projector.jobs.catch_up``,
``services.projector.lanes.drain``...) still runs: the path's last part is its name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rq.job import Job

from services.projector import drain, jobs
from shared import job_names

JOBS: dict[str, Callable[..., Any]] = {
    job_names.CATCH_UP: jobs.catch_up,
    job_names.DRAIN: drain.drain,
    job_names.REBUILD_BATCH: jobs.rebuild_batch,
}


class ProjectorJob(Job):
    """An RQ job whose function is found by its name in ``JOBS`` (or its old dotted path's last part)."""

    @property
    def func(self) -> Any:
        name = self.func_name
        return JOBS.get(name) or JOBS.get(name.rpartition(".")[2]) or Job.func.fget(self)
