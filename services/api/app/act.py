"""Act: one seated player's action (play a card, raise, answer, fold, propose a redeal,
resign, or cancel a waiting match: its creator only).

An action is decided on this process's cached match without reading the stream: the
append's version check proves that state current. Answers given without an append (a
refusal, "not seated", a stale If-Match) are only given on the stream as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from shared.eventstore import AppendToken, ConcurrencyError, DuplicateAppendError
from shared.fold import FoldedMatch
from shared.rules import Cancel, RuleError, Seat, Step, command_for, step

from ..players import Player
from .application_errors import NotAPlayerError, NotTheCreatorError, VersionConflictError
from .idempotency import remembered, replay, replayed, token_for
from .loading import cached
from .matches import Matches
from .recording import Recorded, record, retrying


@dataclass(frozen=True)
class _Request:
    match_id: str
    player: Player
    action: Mapping[str, Any]
    if_match: int | None  # the version the player acted on, if they said
    token: AppendToken | None  # from the Idempotency-Key, if any

    def stale(self, match: FoldedMatch) -> bool:
        return self.if_match is not None and self.if_match != match.version

    def cancels(self) -> bool:
        return self.action.get("type") == Cancel.action


def act(
    matches: Matches, match_id: str, player: Player, action: Mapping[str, Any],
    if_match: int | None = None, idempotency_key: str | None = None,
) -> Recorded:
    """Apply one player action: the recorded events, or an application or rule error."""
    request = _Request(match_id, player, action, if_match, token_for(player, action, idempotency_key))
    return retrying(matches, match_id, partial(_attempt, matches, request), cached(matches, match_id))


def _attempt(matches: Matches, request: _Request, match: FoldedMatch, fresh: bool) -> Recorded | None:
    """Decide on ``match`` and record; None to decide again on the stream as it is."""
    seat = match.state.seat_of(request.player.id)
    if not fresh and (seat is None or request.stale(match)):
        return None  # the cache may be behind: answer only on the stream as it is
    if seat is None:
        raise NotAPlayerError(request.match_id)
    if request.cancels() and seat is not Seat.A:  # R32: the creator sits in A
        raise NotTheCreatorError(request.match_id)
    if request.token and (first := replay(matches, request.match_id, seat, request.token)):
        return first
    if request.stale(match):
        raise VersionConflictError(request.if_match, match.version)
    try:
        stepped = step(match.state, command_for(seat, request.action), matches.chances.of(request.match_id))
    except RuleError as refusal:
        if not fresh:
            return None  # refused by the cached state: ask the current one
        over = match.state.status.over
        raise remembered(matches, request.match_id, seat, request.token, refusal, over) from None
    return _recorded(matches, request, match, stepped, seat)


def _recorded(matches: Matches, request: _Request, match: FoldedMatch, stepped: Step, seat: Seat) -> Recorded:
    """Record the decided events; a concurrent append is a conflict only under If-Match."""
    try:
        return record(matches, match, stepped, seat, request.token)
    except ConcurrencyError as conflict:
        if request.if_match is not None:
            raise VersionConflictError(request.if_match, conflict.actual) from None
        raise  # decided again on the stream as it is
    except DuplicateAppendError as duplicate:  # the same key raced itself
        return replayed(matches, request.match_id, seat, request.token, duplicate.record)
