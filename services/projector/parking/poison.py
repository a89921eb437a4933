"""Finding the poison: the first event of a match that cannot be folded, and why.

A match is parked on it (the registry: :mod:`shared.readmodels.parked`; parking:
:mod:`services.projector.parking.park`). The search itself is a question for the one fold
(``shared.fold.first_refusal``). Only deterministic failures are blamed on an event: a Redis
error, an OS error or RQ's own stop and timeout signals (``TRANSIENT``) are raised as they are.
"""

from __future__ import annotations

import redis
from rq.exceptions import StopRequested
from rq.timeouts import BaseTimeoutException

from shared import keys
from shared.eventstore.port import EventStore
from shared.fold import FoldedMatch, first_refusal
from shared.readmodels.parked import Poison

TRANSIENT = (redis.RedisError, OSError, StopRequested, BaseTimeoutException)
_MAX_ERROR_CHARS = 500  # a record stays small however long the error's text


def describe(error: BaseException) -> str:
    """One line naming the error, short enough to store and show."""
    text = f"{type(error).__name__}: {error}"
    return text if len(text) <= _MAX_ERROR_CHARS else text[:_MAX_ERROR_CHARS - 1] + "…"


def find_poison(store: EventStore, match_id: str, page_size: int = 500) -> tuple[FoldedMatch, Poison] | None:
    """The projection of every event before the match's first poison, and the poison; None if
    the whole stream folds. Transient errors (Redis, OS) are raised, never blamed on an event."""
    refusal = first_refusal(store, keys.validate_match_id(match_id), page_size, passes=TRANSIENT)
    return None if refusal is None else (refusal.before, Poison(refusal.version, describe(refusal.error)))
