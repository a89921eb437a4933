"""A poison: the first event of a match the fold refuses, and the match parked on it.

The fold itself says where it stopped (``shared.fold.fold_to_refusal``, in the one pass a
catch-up or a rebuild makes); :class:`PoisonEventError` carries that to the failure policy,
which parks the match (the registry: :mod:`shared.readmodels.parked`). Only deterministic
failures are blamed on an event: a Redis error, an OS error or RQ's own stop and timeout
signals (``TRANSIENT``) pass through the fold as they are.
"""

from __future__ import annotations

import redis
from rq.exceptions import StopRequested
from rq.timeouts import BaseTimeoutException

from shared.fold import Refusal
from shared.readmodels.parked import Poison

TRANSIENT = (redis.RedisError, OSError, StopRequested, BaseTimeoutException)
_MAX_ERROR_CHARS = 500  # a record stays small however long the error's text


class PoisonEventError(Exception):
    """The fold refused an event: the events before it are published, the match is to be parked."""

    def __init__(self, match_id: str, refusal: Refusal, published: int) -> None:
        super().__init__(f"match {match_id!r}: event {refusal.version} is refused: {refusal.error}")
        self.poison = Poison(refusal.version, describe(refusal.error))
        self.published = published  # the version the views reached, right before the poison


def describe(error: BaseException) -> str:
    """One line naming the error, short enough to store and show."""
    text = f"{type(error).__name__}: {error}"
    return text if len(text) <= _MAX_ERROR_CHARS else text[:_MAX_ERROR_CHARS - 1] + "…"
