"""The match clock (R28-R30): who owes the next decision, and by when.

Time is an input, never read here. Events carry no time of their own (a stored event's
time is the store's), so whoever folds stored events tells the state the time of the
latest one with :func:`clocked`; ``shared.fold.fold`` does, for every reader. Every event
restarts the clock: the deadline is that time plus the match's ``turn_seconds``. The
service acts on a passed deadline with the ``TimeOut`` command, decided like any action.
"""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from .commands import Fold, PlayerAction, Reject
from .state import MatchState, Seat, Status, copy_with

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def clocked(state: MatchState, at_ms: int) -> MatchState:
    """``state`` with the time of its latest event, ``at_ms`` (epoch ms)."""
    return state if state.at == at_ms else copy_with(state, at=at_ms)


def owes(state: MatchState) -> Seat | None:
    """R28: the seat whose decision the match waits for: the seat a pending question asks,
    else the seat on turn; None unless the match is playing."""
    rnd = state.round
    if state.status is not Status.PLAYING or rnd is None:
        return None
    return rnd.pending.by.other if rnd.pending is not None else rnd.turn


def deadline(state: MatchState) -> int | None:
    """R28: when the seat that owes must have decided (epoch ms): the latest event's time plus
    ``turn_seconds``. None when nobody owes, or when the state was folded without times."""
    if state.at is None or owes(state) is None:
        return None
    return state.at + state.rules.turn_seconds * 1000


def default_decision(state: MatchState, seat: Seat) -> PlayerAction:
    """R29: what a timeout decides for ``seat``: reject a question asked of it, else fold."""
    pending = state.round.pending if state.round else None
    return Reject(seat) if pending is not None and pending.by is not seat else Fold(seat)


def lobby_deadline(state: MatchState, lobby_seconds: int) -> int | None:
    """R32: when a waiting match expires (epoch ms): its creation plus ``lobby_seconds``.

    While a match waits its only event is its creation, so the clock holds that time.
    """
    if state.status is not Status.WAITING or state.at is None:
        return None
    return state.at + lobby_seconds * 1000


def iso_utc(ms: int) -> str:
    """Epoch ms as ISO 8601 UTC with milliseconds (``2024-05-01T12:00:00.000Z``), as the
    store writes event times."""
    moment = _EPOCH + timedelta(milliseconds=ms)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
