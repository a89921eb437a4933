"""The one failure policy of the projector: every catch-up and rebuild of a match runs under it.

A match's work is decorated ``@retrying``; what it raises that parks the match (``FAILED``) is
handed to :func:`parked`:

- A transient failure (Redis away, a timeout: ``RETRIED``) is retried, after a pause that
  doubles (``BACKOFF_SECONDS``); if it persists, it is raised as it is: the match keeps its
  mark and the sweep redoes it. Other transient errors (an OS error, RQ's own stop and
  timeout signals) are raised at once.
- A poison event (one the fold refuses: :class:`PoisonEventError`, raised by the work once the
  events before it are published) parks the match, once, with the reason.
- Read models that cannot be written for a reason that would not change on a retry
  (:class:`~services.projector.publishing.guarded.UnpublishableError`: an id no key may hold,
  a view that cannot be computed) park the match too, its views left as they were; except
  in a rebuild whose served views already hold that version, which is abandoned rather
  than served without the match (the error is raised).
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable
from typing import ParamSpec

import redis

from services.projector.catchup.projector_context import ProjectorContext
from services.projector.parking.poison import PoisonEventError
from services.projector.publishing.guarded import UnpublishableError
from shared.readmodels.parked import Poison

log = logging.getLogger(__name__)
P = ParamSpec("P")

RETRIED = (redis.ConnectionError, redis.TimeoutError)  # worth another try: the next may find Redis back
BACKOFF_SECONDS = (0.05, 0.1)  # the pauses before the second and the third try


FAILED = (PoisonEventError, UnpublishableError)  # what parks a match (:func:`parked`)


def parked(
    context: ProjectorContext, match_id: str, failure: PoisonEventError | UnpublishableError,
    generation: int | None = None,
) -> int:
    """Park the match on ``failure`` (of its catch-up, or its rebuild into ``generation``); the
    version its views stay at. A rebuild's write that failed where the served views hold that
    version is raised instead: the rebuild fails, not the match."""
    if isinstance(failure, PoisonEventError):
        _park(context, match_id, failure.poison)
        return failure.published
    if generation is not None and context.readmodels.projected_version(match_id) >= failure.version:
        raise failure
    _park(context, match_id, failure.poison)
    target = context.readmodels.generation() if generation is None else generation
    return context.readmodels.at(target).projected_version(match_id)


def retrying(work: Callable[P, int]) -> Callable[P, int]:
    """``work``, tried again after each pause of ``BACKOFF_SECONDS`` while it fails with ``RETRIED``."""
    @functools.wraps(work)
    def tried(*args: P.args, **kwargs: P.kwargs) -> int:
        for pause in BACKOFF_SECONDS:
            try:
                return work(*args, **kwargs)
            except RETRIED as error:
                log.warning("Transient failure, trying again in %.0f ms: %s", pause * 1000, error)
                time.sleep(pause)
        return work(*args, **kwargs)
    return tried


def _park(context: ProjectorContext, match_id: str, poison: Poison) -> None:
    context.readmodels.parked.park(match_id, poison, context.store.version(match_id))
    log.error("Parked match %s at event %d: %s", match_id, poison.version, poison.error)
