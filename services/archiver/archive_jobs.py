"""The archiver's job, by the name its queue holds (:data:`shared.job_names.ARCHIVE`), and the
process's :class:`~shared.archive.archiving.Archiver`, built from the environment on first use."""
from __future__ import annotations

import threading
from typing import Any

from rq.job import Job

from shared import job_names
from shared.archive.archiving import Archiver
from shared.config import Config
from shared.observability.log_context import bound

_archiver: Archiver | None = None
_lock = threading.Lock()


def use_archiver(archiver: Archiver | None) -> None:
    """Make ``archiver`` the one this process's jobs use; None: build it from the env again."""
    global _archiver
    with _lock:
        _archiver = archiver


def current_archiver() -> Archiver:
    """This process's archiver, built on first use from ``Config.from_env()``."""
    global _archiver
    with _lock:
        if _archiver is None:
            _archiver = Archiver.from_config(Config.from_env())
        return _archiver


def archive(match_id: str) -> str:
    """The queued job: archive one match if it is due; what became of it."""
    with bound(match_id=match_id):
        return current_archiver().archive_one(match_id).result


JOBS = {job_names.ARCHIVE: archive}


class ArchiverJob(Job):
    """An RQ job whose function is found by its name in ``JOBS``."""

    @property
    def func(self) -> Any:
        return JOBS.get(self.func_name) or Job.func.fget(self)
