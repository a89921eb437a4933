"""The one failure policy of the projector: every catch-up and rebuild of a match runs under it.

- A transient failure (Redis away, a timeout: ``RETRIED``) is retried, after a pause that
  doubles (``BACKOFF_SECONDS``); if it persists, it is raised as it is: the match keeps its
  mark and the sweep redoes it. Other transient errors (an OS error, RQ's own stop and
  timeout signals) are raised at once.
- A poison event (one the fold refuses) parks the match, once, with the reason: the events
  before it are projected, the rest wait (the registry: :mod:`shared.readmodels.parked`).
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
from services.projector.parking.poison import TRANSIENT, find_poison
from services.projector.publishing.guarded import UnpublishableError, publish_to
from shared.readmodels.parked import Poison

log = logging.getLogger(__name__)

RETRIED = (redis.ConnectionError, redis.TimeoutError)  # worth another try: the next may find Redis back
BACKOFF_SECONDS = (0.05, 0.1)  # the pauses before the second and the third try


@dataclass(frozen=True)
class Outcome:
    """What became of a match's work: the version its views reached, and whether the work failed."""

    version: int
    failed: bool = False  # it raised, and the match was parked (the version: where its views stay)


def projected_or_parked(
    context: ProjectorContext, match_id: str, work: Callable[[], int], *, generation: int | None = None,
) -> Outcome:
    """Run ``work`` (the match's catch-up or rebuild into ``generation``) under the policy above."""
    try:
        return Outcome(retrying(work))
    except Exception as error:
        if isinstance(error, TRANSIENT) or _served_already(context, match_id, error, generation):
            raise
        return Outcome(park_on(context, match_id, error, generation), failed=True)


def retrying(work: Callable[[], int]) -> int:
    """``work()``, tried again after each pause of ``BACKOFF_SECONDS`` while it fails with ``RETRIED``."""
    for pause in BACKOFF_SECONDS:
        try:
            return work()
        except RETRIED as error:
            log.warning("Transient failure, trying again in %.0f ms: %s", pause * 1000, error)
            time.sleep(pause)
    return work()


@dataclass(frozen=True)
class _Parking:
    """What a match is parked on, and the version its views stay at (None: as they were)."""

    poison: Poison
    version: int | None


def park_on(context: ProjectorContext, match_id: str, error: Exception, generation: int | None = None) -> int:
    """Park a match that holds a poison event or cannot be written; re-raise anything else.

    A poison: projects the events before it (into ``generation``, or the live ones) and
    returns the version of the last of them. Read models that cannot be written: returns
    the version the views of that generation still hold.
    """
    parking = _published_before_poison(context, match_id, error, generation)
    context.readmodels.parked.park(match_id, parking.poison, context.store.version(match_id))
    log.error("Parked match %s at event %d: %s", match_id, parking.poison.version, parking.poison.error)
    if parking.version is not None:
        return parking.version
    target = context.readmodels.generation() if generation is None else generation
    return context.readmodels.at(target).projected_version(match_id)


def _served_already(context: ProjectorContext, match_id: str, error: Exception, generation: int | None) -> bool:
    """A rebuild's write failed where the served views hold that version: the rebuild fails, not the match."""
    return (isinstance(error, UnpublishableError) and generation is not None
            and context.readmodels.projected_version(match_id) >= error.version)


def _published_before_poison(
    context: ProjectorContext, match_id: str, error: Exception, generation: int | None,
) -> _Parking:
    """What the match is parked on, the events before a poison published first (if they can be)."""
    if isinstance(error, UnpublishableError):
        return _Parking(error.poison, None)
    found = find_poison(context.store, match_id, context.page_size)
    if found is None:  # every event folds and none was written: the failure lies elsewhere
        raise error
    before, poison = found
    try:
        if before.version:
            publish_to(context, before, generation)
    except UnpublishableError as unwritable:
        return _Parking(unwritable.poison, None)
    return _Parking(poison, before.version)
