"""Finding the poison: the first event of a match that cannot be folded, and why.

A match is parked on it (the registry: :mod:`shared.readmodels.parked`); the failure
policy that decides when (:mod:`services.projector.catchup.failures`) calls this.
Only deterministic failures are blamed on an event: a Redis error, an OS error or RQ's
own stop and timeout signals (``TRANSIENT``) are raised as they are.
"""

from __future__ import annotations

from collections.abc import Sequence

import redis
from rq.exceptions import StopRequested
from rq.timeouts import BaseTimeoutException

from shared import keys
from shared.eventstore.port import EventStore, StoredEvent
from shared.eventstore.store_errors import CorruptEventError
from shared.fold import FoldedMatch, fold
from shared.readmodels.parked import Poison

TRANSIENT = (redis.RedisError, OSError, StopRequested, BaseTimeoutException)
_MAX_ERROR_CHARS = 500  # a record stays small however long the error's text


def describe(error: BaseException) -> str:
    """One line naming the error, short enough to store and show."""
    text = f"{type(error).__name__}: {error}"
    return text if len(text) <= _MAX_ERROR_CHARS else text[:_MAX_ERROR_CHARS - 1] + "…"


def find_poison(store: EventStore, match_id: str, page_size: int = 500) -> tuple[FoldedMatch, Poison] | None:
    """Fold the match from its first event, one event at a time, until one fails.

    Returns the projection of every event before the poison and the poison itself; None
    if the whole stream folds. Transient errors (Redis, OS) are raised, never blamed on
    an event.
    """
    projection = FoldedMatch(keys.validate_match_id(match_id))
    while True:
        try:
            page = store.read(match_id, after=projection.version, limit=page_size)
        except CorruptEventError as error:
            # Entries before the unreadable one still read: fold them, then stop at it.
            readable = store.read(match_id, after=projection.version, limit=error.version - projection.version - 1)
            before, poison = _fold_one_by_one(projection, readable)
            return before, poison or Poison(error.version, describe(error))
        projection, poison = _fold_one_by_one(projection, page)
        if poison is not None:
            return projection, poison
        if len(page) < page_size:
            return None


def _fold_one_by_one(projection: FoldedMatch, page: Sequence[StoredEvent]) -> tuple[FoldedMatch, Poison | None]:
    """Fold ``page`` event by event; the projection before the first that fails, and its poison."""
    for stored in page:
        try:
            projection = fold(projection, [stored])
        except TRANSIENT:
            raise
        except Exception as error:  # noqa: BLE001 - whatever the fold raises, this event caused it
            return projection, Poison(stored.version, describe(error))
    return projection, None
