"""The one failure policy of the projector: every catch-up and rebuild of a match runs under it.

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

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

import redis

from services.projector.catchup.projector_context import ProjectorContext
from services.projector.parking.poison import PoisonEventError
from services.projector.publishing.guarded import UnpublishableError
from shared.readmodels.parked import Poison

log = logging.getLogger(__name__)

RETRIED = (redis.ConnectionError, redis.TimeoutError)  # worth another try: the next may find Redis back
BACKOFF_SECONDS = (0.05, 0.1)  # the pauses before the second and the third try


@dataclass(frozen=True)
class Outcome:
    """What became of a match's work: the version its views reached, and whether the work failed."""

    version: int
    failed: bool = False  # the match was parked (the version: where its views stay)


def projected_or_parked(
    context: ProjectorContext, match_id: str, work: Callable[[], int], *, generation: int | None = None,
) -> Outcome:
    """Run ``work`` (the match's catch-up or rebuild into ``generation``) under the policy above."""
    try:
        return Outcome(retrying(work))
    except PoisonEventError as poisoned:
        _park(context, match_id, poisoned.poison)
        return Outcome(poisoned.published, failed=True)
    except UnpublishableError as unwritable:
        if generation is not None and context.readmodels.projected_version(match_id) >= unwritable.version:
            raise  # a rebuild's write failed where the served views hold that version: the rebuild fails
        _park(context, match_id, unwritable.poison)
        target = context.readmodels.generation() if generation is None else generation
        return Outcome(context.readmodels.at(target).projected_version(match_id), failed=True)


def retrying(work: Callable[[], int]) -> int:
    """``work()``, tried again after each pause of ``BACKOFF_SECONDS`` while it fails with ``RETRIED``."""
    for pause in BACKOFF_SECONDS:
        try:
            return work()
        except RETRIED as error:
            log.warning("Transient failure, trying again in %.0f ms: %s", pause * 1000, error)
            time.sleep(pause)
    return work()


def _park(context: ProjectorContext, match_id: str, poison: Poison) -> None:
    context.readmodels.parked.park(match_id, poison, context.store.version(match_id))
    log.error("Parked match %s at event %d: %s", match_id, poison.version, poison.error)
