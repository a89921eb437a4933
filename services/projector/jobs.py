"""The projector's RQ jobs: each translates a queued call into one call of the read side.

The work itself is in :mod:`services.projector.catchup` and :mod:`services.projector.rebuild`;
here each process keeps the context its jobs use (connected on first use from the
environment). The queues hold the jobs' names (:mod:`shared.job_names`); the workers
resolve them through :mod:`services.projector.job_table`.
"""

from __future__ import annotations

import threading

from services.projector.catchup import catching_up
from services.projector.catchup.projector_context import ProjectorContext
from services.projector.rebuild import match_rebuilds
from shared.config import Config
from shared.readmodels.parked import ParkedMatch

_context: ProjectorContext | None = None
_context_lock = threading.Lock()


def use_context(context: ProjectorContext | None) -> None:
    """Make ``context`` the one jobs of this process use; None: build it from the env again."""
    global _context
    with _context_lock:
        _context = context


def current_context() -> ProjectorContext:
    """This process's context, connected on first use from ``Config.from_env()``."""
    global _context
    with _context_lock:
        if _context is None:
            _context = ProjectorContext.from_config(Config.from_env())
        return _context


def catch_up(match_id: str, context: ProjectorContext | None = None) -> int:
    """Fold every event not yet folded into the match's read models; the version reached."""
    return catching_up.catch_up(match_id, context or current_context())


def rebuild_batch(match_ids: list[str], generation: int, context: ProjectorContext | None = None) -> int:
    """The rebuild's job: fold each match from 0 into ``generation``; the events folded."""
    return match_rebuilds.rebuild_batch(match_ids, generation, context or current_context())


def unpark(match_id: str, context: ProjectorContext | None = None) -> ParkedMatch | None:
    """Retry a parked match now; its new record if it is still parked, else None.

    An operator's action, for after a deploy that reads the event or a stream repaired by
    hand (``python -m services.projector unpark MATCH``, ``truc unpark MATCH``).
    """
    return catching_up.unpark(match_id, context or current_context())
