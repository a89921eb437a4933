"""Reads of a private match that waits (API.md "Private matches"): 404 to all but its creator.

Whoever asks by id, for its view, its events, its replay or its stream, is told what a
missing match tells: ``NOT_FOUND``. Two may read it: its creator, whose view carries the
invite to pass on, and a caller who sends that invite (the ``Invite`` header, on the view
alone): the friend it was meant for sees who waits and on what terms (the clock, the
target, custom terms) before joining. Once joined it reads like any match, though it is
never listed in the lobby. The one rule lives here, and in the use case for the join.
"""
from __future__ import annotations

from typing import Any

from flask import request

from shared.rules import MatchState

from .api_error import not_found
from .app import Matches, latest
from .app.invites import admits, invite_of, shown_to
from .players import Player
from .privacy import INVITE_HEADER


def check_state(state: MatchState, player: Player | None) -> None:
    """404 unless ``player`` may read the match as folded (``state``)."""
    if not shown_to(state, player):
        raise not_found()


def check_summary(matches: Matches, match_id: str, summary: dict[str, Any], player: Player | None) -> None:
    """404 unless ``player``, or the ``Invite`` header sent, may read the match its lobby line is of.

    The lobby line may lag the stream: a friend who has just joined reads their match before
    the projector has seated them, so a refusal is checked once more against the stream.
    """
    if invite_only(summary) and not _created(summary, player) and not admits(
            matches, match_id, request.headers.get(INVITE_HEADER)):
        check_state(latest(matches, match_id).state, player)


def invite_only(summary: dict[str, Any]) -> bool:
    """Whether the lobby line is of a private match nobody has joined yet."""
    return bool(summary.get("private")) and summary["players"].get("B") is None


def with_invite(matches: Matches, view: dict[str, Any]) -> dict[str, Any]:
    """The creator's view of a private match that waits, with the invite to pass on (none for a
    match this server holds no seed of: it cannot be joined by a code)."""
    invite = invite_of(matches, view["id"])
    return view if invite is None else {**view, "invite": invite}


def _created(summary: dict[str, Any], player: Player | None) -> bool:
    creator = summary["players"].get("A")
    return player is not None and creator is not None and creator["id"] == player.id
