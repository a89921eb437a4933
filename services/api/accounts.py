"""Accounts: a password, logging in from another device, the devices a player is logged in on, their matches.

``POST /sessions`` trades a name and password for a new token (:mod:`.sessions`);
``GET /players/me/sessions`` and ``DELETE /players/me/sessions/{id}`` list and end them;
``PUT /players/me/password`` sets or changes the password (:mod:`.passwords`);
``GET /players/me/matches`` lists the caller's matches, so a new device finds where to play on.
"""
from __future__ import annotations

from flask import Response

from shared import names
from shared.eventstore.schema import iso_from_ms
from shared.rules.rule_errors import N_

from .api_error import ApiError, invalid, not_found
from .auth import credential, required_player
from .client_address import client_address
from .json_responses import json_response
from .players import name_claims
from .schemas import (
    ErrorSchema,
    LoginSchema,
    MyMatchesQuerySchema,
    NewSessionSchema,
    PasswordSetSchema,
    SessionListSchema,
)
from .sessions import Session
from .smorest import ApiBlueprint
from .wiring import services

blp = ApiBlueprint("accounts", __name__, description="Passwords, sessions (one per device) and the caller's matches.")

_UNAUTHENTICATED = "`UNAUTHENTICATED`: no token, or one of no player."
_BAD_CREDENTIALS = N_("This name and password do not match.")


def _player_named(name: str) -> str | None:
    """The id of the player of ``name`` (its comparison form, as registration claims it); None: nobody."""
    try:
        claim = name_claims(names.normalise(name))[0]
    except names.InvalidNameError:
        return None
    held = services().redis.get(claim)
    return None if held is None else held.decode()


@blp.route("/sessions", methods=["POST"])
@blp.arguments(LoginSchema)
@blp.response(201, NewSessionSchema)
@blp.alt_response(401, schema=ErrorSchema, description="`BAD_CREDENTIALS`: no player has this name and password "
                                                       "(the same answer for a wrong name as for a wrong password)")
@blp.alt_response(429, schema=ErrorSchema, description="`RATE_LIMITED`: too many login attempts from this address "
                                                       "(`logins`) or for this name (`name_logins`)")
def log_in(body: dict) -> dict:
    """Log in with a name and password: a new bearer token for this device (its session)."""
    ctx = services()
    ctx.limits.log_in(client_address(), _comparison_form(body["name"]))
    player_id = _player_named(body["name"])
    player = None if player_id is None else ctx.players.by_id(player_id)
    if not ctx.passwords.check(None if player is None else player.id, body["password"]):
        raise ApiError(401, "BAD_CREDENTIALS", _BAD_CREDENTIALS)
    session_id, token = ctx.sessions.open(player)
    return {"id": session_id, "token": token, "player": {"id": player.id, "name": player.name}}


def _comparison_form(name: str) -> str:
    """What a name's login attempts are counted by: its spellings and look-alikes are one name."""
    try:
        return names.same_name_keys(names.normalise(name))[0]
    except names.InvalidNameError:
        return name.casefold()


@blp.route("/players/me/password", methods=["PUT"])
@blp.arguments(PasswordSetSchema)
@blp.response(204)
@blp.alt_response(401, schema=ErrorSchema, description=_UNAUTHENTICATED)
@blp.alt_response(403, schema=ErrorSchema, description="`BAD_CREDENTIALS`: `current` is not the password set")
def set_password(body: dict) -> Response:
    """Set the caller's password, or change it (then `current` must be the one set). Every other
    session of the caller ends with it (their tokens are refused from now on): this one stays."""
    ctx, player = services(), required_player()
    ctx.limits.issue_credential(player.id)
    if ctx.passwords.is_set(player.id):
        if "current" not in body:
            raise invalid("Send the password set now as 'current'.",
                          {"current": ["Send the password set now as 'current'."]})
        if not ctx.passwords.check(player.id, body["current"]):
            raise ApiError(403, "BAD_CREDENTIALS", "That is not the password set now.")
    ctx.passwords.store(player.id, ctx.passwords.hash(body["password"]))
    ctx.sessions.revoke_others(player.id, credential())  # whoever knew the old password is logged out
    return Response(status=204)


@blp.route("/players/me/sessions", methods=["GET"])
@blp.response(200, SessionListSchema)
@blp.alt_response(401, schema=ErrorSchema, description=_UNAUTHENTICATED)
def list_sessions() -> dict:
    """The caller's sessions (each a device's token), oldest first; `current` marks the one asking."""
    ctx, player = services(), required_player()
    current = credential()
    unwritten = ctx.last_seen.unwritten(player.id)
    sessions = ctx.sessions.listed(player.id, current)
    return {"sessions": [_line(session, current, unwritten) for session in sessions],
            "password": ctx.passwords.is_set(player.id)}


def _line(session: Session, current: str | None, unwritten: dict[str, int]) -> dict:
    seen = max(filter(None, (session.last_seen_ms, unwritten.get(session.token_hash))), default=None)
    return {"id": session.id, "created_at": iso_from_ms(session.created_at_ms),
            "last_seen_at": None if seen is None else iso_from_ms(seen), "current": session.token_hash == current}


@blp.route("/players/me/sessions/<id:session_id>", methods=["DELETE"])
@blp.response(204)
@blp.alt_response(401, schema=ErrorSchema, description=_UNAUTHENTICATED)
@blp.alt_response(404, schema=ErrorSchema, description="`NOT_FOUND`: the caller has no such session")
def end_session(session_id: str) -> Response:
    """End one of the caller's sessions: its token stops working at once, on every server process
    (the caller's own too: that is logging out)."""
    ctx, player = services(), required_player()
    if not ctx.sessions.revoke(player.id, session_id):
        raise not_found("session")
    return Response(status=204)


@blp.route("/players/me/matches", methods=["GET"])
@blp.arguments(MyMatchesQuerySchema, location="query")
@blp.response(200)
@blp.alt_response(401, schema=ErrorSchema, description=_UNAUTHENTICATED)
def my_matches(query: dict) -> Response:
    """The caller's matches of a status (playing by default), newest first, as lobby summaries (private
    ones too); `after`: the last id of the page before."""
    player = required_player()
    listed = services().read_models.player_matches(player.id, query["status"], query["limit"], hide=False,
                                                   after=query.get("after"))
    return json_response({"matches": listed})
