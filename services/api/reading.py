"""Endpoints that read: served from the projector's read models."""
from __future__ import annotations

from typing import Any

import orjson
from flask import Response

from shared.archive.archived_reads import is_archived
from shared.readmodels.projection import match_view, read_models_of, seated_ids
from shared.readmodels.projection import summary as lobby_line
from shared.rules import Seat

from .api_error import not_found
from .app import latest
from .auth import optional_player
from .client_address import client_address
from .json_responses import json_response, raw_json_response
from .players import Player
from .private_matches import check_summary, invite_only, with_invite
from .rating_reads import rating_fields
from .schemas import (
    LobbyQuerySchema,
    PlayerMatchesQuerySchema,
    ScoreboardQuerySchema,
    ScoreboardSchema,
    ScoreRowSchema,
    ViewQuerySchema,
)
from .smorest import ApiBlueprint
from .wiring import services

blp = ApiBlueprint("reading", __name__, description="Match views, the lobby and the scoreboard.")

_FIRST_PROJECTION_WAIT = 1.0  # a match created a moment ago may not be projected yet


@blp.route("/matches/<id:match_id>", methods=["GET"])
@blp.arguments(ViewQuerySchema, location="query")
@blp.response(200)
def get_match(query: dict, match_id: str) -> Response:
    """The match as the caller may see it; `min_version` + `wait` wait for a version (read-your-writes)."""
    player = optional_player()
    served, summary = _read_view(match_id)
    if summary is None and is_archived(services().store, match_id):
        return _from_the_archive(match_id, player)  # no view is stored, none will be: nothing to wait for
    _check_readable(match_id, summary, player)  # before any wait: a hidden match holds no slot
    if _wait_for_version(match_id, summary, query):
        served, summary = _read_view(match_id)
    if summary is None:
        return _from_the_stream(match_id, player)
    check_summary(services().matches, match_id, summary, player)
    return _served_view(served, match_id, summary, player)


def _read_view(match_id: str) -> tuple[Any, dict | None]:
    """The generation served now (resolved once per read) and the match's lobby line in it, if projected.

    The lobby line is written with the views, so its version is theirs: one read for both.
    """
    read_models = services().read_models
    served = read_models.at(read_models.generation())
    return served, served.summary(match_id)


def _projected(summary: dict | None) -> int:
    return summary["version"] if summary else 0


def _check_readable(match_id: str, summary: dict | None, player: Player | None) -> None:
    """404 for a match that does not exist, or a private one the caller may not read."""
    ctx = services()
    if _projected(summary) == 0 and ctx.store.version(match_id) == 0:
        raise not_found()
    if summary is not None:
        check_summary(ctx.matches, match_id, summary, player)


def _wait_for_version(match_id: str, summary: dict | None, query: dict) -> bool:
    """Wait for the version asked (at least 1: a match created a moment ago), if not served yet; True if it waited."""
    projected = _projected(summary)
    min_version = max(query["min_version"], 1)
    wait = query["wait"] if projected else max(query["wait"], _FIRST_PROJECTION_WAIT)
    return projected < min_version and bool(wait) and _waited(match_id, min_version, wait)


def _served_view(served: Any, match_id: str, summary: dict, player: Player | None) -> Response:
    """The stored view of the caller's audience (the creator's with the invite, while it is needed)."""
    audience = _audience(summary, player)
    body = served.view_json(match_id, audience)
    if audience == "A" and invite_only(summary):
        body = orjson.dumps(with_invite(services().matches, orjson.loads(body)))
    response = raw_json_response(body)
    # From the body served: a projector write may land between the two reads above.
    response.headers["ETag"] = f'"{orjson.loads(body)["version"]}"'
    return response


def _audience(summary: dict, player: Player | None) -> str:
    """The seat ``player`` holds in the match, else ``spectator``."""
    audience = "spectator"
    for seat, seated in summary["players"].items():
        if player is not None and seated and seated["id"] == player.id:
            audience = seat
    return audience


def _waited(match_id: str, min_version: int, wait: float) -> bool:
    """Wait for the views to reach ``min_version``, if they can and the caller may; True if it waited.

    Waiting for the next event (the opponent's move) is what clients do; a version further
    than that past the stream answers at once (no append is on its way to it), and so does
    a wait past the process's or the client's share of waiting threads (the contract's
    "older view on timeout", early).
    """
    ctx = services()
    if min_version > ctx.store.version(match_id) + 1:
        return False
    give_back = ctx.waits.take(client_address())
    if give_back is None:
        return False
    try:
        ctx.read_models.wait_for_version(match_id, min_version, wait)  # follows a rebuild's switch
    finally:
        give_back()
    return True


def _from_the_stream(match_id: str, player: Player | None) -> Response:
    """Not projected yet (a worker is behind): fold the stream here rather than fail."""
    matches = services().matches
    match = latest(matches, match_id)
    if match.version == 0:
        raise not_found()
    check_summary(matches, match_id, lobby_line(match), player)
    seat = match.state.seat_of(player.id) if player else None
    view = match_view(match_id, match.version, match.state, seat, services().read_models.names(seated_ids(match.state)))
    response = json_response(with_invite(matches, view) if seat is Seat.A and match.state.invite_only else view)
    response.headers["ETag"] = f'"{match.version}"'
    return response


def _from_the_archive(match_id: str, player: Player | None) -> Response:
    """An archived match's view: the one the projector stored before it left, rendered from its
    archived events by the same code, and marked ``archived``."""
    matches = services().matches
    match = latest(matches, match_id)  # the archived events, folded (and cached like any match's fold)
    summary = lobby_line(match)
    check_summary(matches, match_id, summary, player)
    audience = _audience(summary, player)
    names = services().read_models.names(seated_ids(match.state))
    view = {**read_models_of(match, names).views[audience], "archived": True}
    if audience == "A" and invite_only(summary):
        view = with_invite(matches, view)
    response = json_response(view)
    response.headers["ETag"] = f'"{match.version}"'
    return response


@blp.route("/matches", methods=["GET"])
@blp.arguments(LobbyQuerySchema, location="query")
@blp.response(200)
def lobby(query: dict) -> Response:
    """Matches by status, newest first: a lobby of waiting matches by default (private ones are never listed);
    `after`: the last id of the page before."""
    return json_response({"matches": services().read_models.lobby(query["status"], query["limit"],
                                                                  query.get("after"))})


@blp.route("/scoreboard", methods=["GET"])
@blp.arguments(ScoreboardQuerySchema, location="query")
@blp.response(200, ScoreboardSchema)
def scoreboard(query: dict):
    """Players by matches won, then points difference, then name."""
    return services().read_models.scoreboard(query["limit"])


@blp.route("/players/<id:player_id>", methods=["GET"])
@blp.response(200, ScoreRowSchema)
def player_row(player_id: str):
    """One player's scoreboard row (zeros before their first finished match)."""
    ctx = services()
    player = ctx.players.by_id(player_id)
    if player is None:
        raise not_found("player")
    row = ctx.read_models.player_row(player_id)
    zeros = dict.fromkeys(("matches_played", "matches_won", "rounds_won", "points_for", "points_against"), 0)
    return {**(row or {"id": player.id, "name": player.name, **zeros}),
            "rating": rating_fields(ctx.read_models.ratings().rating(player_id))}


@blp.route("/players/<id:player_id>/matches", methods=["GET"])
@blp.arguments(PlayerMatchesQuerySchema, location="query")
@blp.response(200)
def player_matches(query: dict, player_id: str) -> Response:
    """One player's matches of a status (playing by default), newest first; private ones only to that player."""
    ctx, caller = services(), optional_player()
    if ctx.players.by_id(player_id) is None:
        raise not_found("player")
    hide = caller is None or caller.id != player_id  # their private matches are theirs to list
    return json_response({"matches": ctx.read_models.player_matches(player_id, query["status"], query["limit"],
                                                                    hide)})
