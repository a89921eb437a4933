"""Endpoints that change something: players, matches, actions."""
from __future__ import annotations

import re
from collections.abc import Callable

from flask import Response, g, request, url_for

from shared.ids import new_id
from shared.readmodels.projection import match_view, seated_ids
from shared.redaction import public_events
from shared.rules import Cancel, Seat, Status

from . import app as use_cases
from .api_error import ApiError, invalid
from .auth import required_player
from .client_address import client_address
from .json_responses import json_response
from .players import NameTakenError, token_hash
from .private_matches import with_invite
from .schemas import (
    ActionResultSchema,
    ActionSchema,
    ErrorSchema,
    JoinSchema,
    MatchCreateSchema,
    PlayerCreateSchema,
    PlayerSchema,
    plainly_valid_action,
)
from .smorest import ApiBlueprint
from .wiring import services

blp = ApiBlueprint("commands", __name__, description="Register, create and join matches, and act in them.")

_IF_MATCH = re.compile(r'^(?:W/)?"?(\d{1,18})"?$')


def _limited(what: str) -> str:
    return (f"`RATE_LIMITED`: {what}; `limit` names it. `Retry-After` and `RateLimit-Reset` say when to come "
            "back; `RateLimit-Limit` and `RateLimit-Remaining` come with every answer it counted.")


@blp.route("/players", methods=["POST"])
@blp.arguments(PlayerCreateSchema)
@blp.response(201, PlayerSchema)
@blp.alt_response(429, schema=ErrorSchema, description=_limited("too many registrations from this address "
                                                                "(`registrations`)"))
def register_player(body: dict):
    """Register a player: returns its id and its bearer token (shown only once); with a `password`, the
    player can log in from other devices too (`POST /sessions`)."""
    ctx = services()
    try:
        with ctx.limits.registering(client_address()):  # counted first: a refused flood costs no hashing
            hashed = None if "password" not in body else ctx.passwords.hash(body["password"])  # before any write
            player, token = ctx.players.register(body["name"])
    except NameTakenError:
        isolated = f"\u2068{body['name']}\u2069"  # FSI ... PDI: a right-to-left name does not reorder the sentence
        raise ApiError(409, "NAME_TAKEN", "The name {name} is taken.", params={"name": isolated}) from None
    if hashed is not None:
        ctx.passwords.store(player.id, hashed)
    ctx.sessions.first(player.id, token_hash(token))  # the first device's session
    return {"id": player.id, "name": player.name, "token": token}


@blp.route("/matches", methods=["POST"])
@blp.arguments(MatchCreateSchema)
@blp.response(201)
@blp.alt_response(429, schema=ErrorSchema, description=_limited("too many matches created by this player lately "
                                                                "(`matches`), or waiting for an opponent "
                                                                "(`waiting_matches`)"))
def create_match(options: dict) -> Response:
    """Create a match; the caller sits in seat A (and the bot in B at once with `"opponent": "bot"`).
    With `"private": true` it is never listed, and joined only with the `invite` of the creator's view."""
    ctx = services()
    opponent = ctx.bot() if options.pop("opponent", None) == "bot" else None
    bot_level = options.pop("bot_level", None)  # recorded in match_created against the bot (default medium)
    player, match_id = required_player(), new_id()
    with ctx.limits.creating(player.id, match_id, waits=opponent is None, ended=_ended_for(player.id)):
        recorded = use_cases.create(ctx.matches, player, options, opponent, match_id, bot_level)
    response = _view_of(recorded, 201)
    response.headers["Location"] = url_for("reading.get_match", match_id=recorded.match_id)
    return response


@blp.route("/matches/<id:match_id>/join", methods=["POST"])
@blp.arguments(JoinSchema, required=False)
@blp.response(200)
@blp.alt_response(404, schema=ErrorSchema, description="`NOT_FOUND`: no such match, or a private one joined "
                                                       "without its invite or with another")
@blp.alt_response(409, schema=ErrorSchema, description="`TOO_MANY_MATCHES`: the caller sits in `MAX_PLAYING` "
                                                       "unfinished matches already; or a rule code, `CUSTOM_TERMS`.")
@blp.alt_response(429, schema=ErrorSchema, description=_limited("too many join attempts by this player (`joins`) "
                                                                "or from this address (`client_joins`) lately"))
def join_match(body: dict, match_id: str) -> Response:
    """Take seat B; round 1 is dealt at once. A custom match needs `{"accept_custom": true}`, a private
    one `{"invite": "..."}` (without it, or with another: 404, as for no match)."""
    ctx, player = services(), required_player()
    with ctx.limits.joining(player.id, client_address(), match_id, _ended_for(player.id)):
        recorded = use_cases.join(ctx.matches, match_id, player, body.get("accept_custom", False),
                                  body.get("invite"))
    ctx.limits.left_lobby(match_id, recorded.state)
    return _view_of(recorded, 200)


@blp.route("/matches/<id:match_id>/actions", methods=["POST"])
@blp.arguments_fast(ActionSchema, plainly_valid_action)
@blp.response(200, ActionResultSchema)
@blp.alt_response(429, schema=ErrorSchema, description=_limited("this player acts too fast (`actions`)"))
def act(action: dict, match_id: str) -> Response:
    """Play a card, raise, declare the remainder, accept, reject, fold, propose a redeal or resign;
    the creator may cancel a match still waiting for its second player (anyone else: 403)."""
    g.action_type = action["type"]  # the metrics' label (observe)
    ctx, player = services(), required_player()
    ctx.limits.act(player.id)
    recorded = use_cases.act(ctx.matches, match_id, player, action, _if_match(), _idempotency_key())
    if action.get("type") == Cancel.action:
        ctx.limits.left_lobby(match_id, recorded.state)
    ctx.limits.ended(match_id, recorded.state)
    seat = recorded.seat.value if recorded.seat else None
    # A new deal in these events has nothing played yet; a won match shows everything.
    events = public_events(recorded.events, seat, decoded=recorded.decided)
    response = json_response({"version": recorded.version, "events": events}, 200)
    response.headers["ETag"] = f'"{recorded.version}"'
    return response


def _view_of(recorded: use_cases.Recorded, status: int) -> Response:
    names = recorded.names
    if names is None:  # not read in the append's round trip
        names = services().read_models.names(seated_ids(recorded.state))
    view = match_view(recorded.match_id, recorded.version, recorded.state, recorded.seat, names)
    if recorded.seat is Seat.A and recorded.state.invite_only:
        view = with_invite(services().matches, view)
    response = json_response(view, status)
    response.headers["ETag"] = f'"{recorded.version}"'
    return response


def _ended_for(player_id: str) -> Callable[[str], bool]:
    """Whether a match the player holds a unit of is over for them: ended, or played without them
    (a join that lost its race and could not give its unit back)."""
    def ended(match_id: str) -> bool:
        state = use_cases.latest(services().matches, match_id).state
        return state.status.over or (state.status is Status.PLAYING and state.seat_of(player_id) is None)
    return ended


def _if_match() -> int | None:
    header = request.headers.get("If-Match")
    if header is None:
        return None
    parsed = _IF_MATCH.match(header.strip())
    if parsed is None:
        raise invalid("If-Match must be the quoted match version, e.g. \"12\".", {"If-Match": ["Not a version."]})
    return int(parsed.group(1))


def _idempotency_key() -> str | None:
    key = request.headers.get("Idempotency-Key")
    if key is not None and not 1 <= len(key) <= 64:
        raise invalid("Idempotency-Key must be 1-64 characters.", {"Idempotency-Key": ["1-64 characters."]})
    return key
