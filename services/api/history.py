"""The audit log and step-by-step replay of a match, redacted for the caller."""
from __future__ import annotations

from flask import Response

from shared.fold import fold_up_to
from shared.redaction import public_events
from shared.rules import replay_view

from .app import latest
from .auth import optional_player
from .context import services
from .errors import ApiError, not_found
from .json_responses import json_response
from .schemas import EventLogSchema, EventsQuerySchema, ReplayQuerySchema
from .smorest import ApiBlueprint

blp = ApiBlueprint("history", __name__, description="Every recorded event of a match, and the match at any version.")


def _seated(match_id: str):
    """The match's current state and the caller's seat in it (None: a spectator)."""
    match = latest(services().matches, match_id)
    if match.version == 0:
        raise not_found()
    player = optional_player()
    seat = match.state.seat_of(player.id) if player else None
    return match.version, match.state, seat


@blp.route("/matches/<id:match_id>/events", methods=["GET"])
@blp.arguments(EventsQuerySchema, location="query")
@blp.response(200, EventLogSchema)
def events(query: dict, match_id: str) -> Response:
    """The audit log after version `after`: unplayed cards are null for all but their holder until the end."""
    _, _, seat = _seated(match_id)
    stored = services().store.read(match_id)
    window = stored[query["after"]:query["after"] + query["limit"]]
    return json_response({"events": public_events(window, seat.value if seat else None, known=stored)})


@blp.route("/matches/<id:match_id>/replay", methods=["GET"])
@blp.arguments(ReplayQuerySchema, location="query")
@blp.response(200)
def replay(query: dict, match_id: str) -> Response:
    """The match view right after event `version`; once the match is finished both hands show."""
    current, now, seat = _seated(match_id)
    wanted = query["version"]
    if wanted > current:
        raise ApiError(404, "NOT_FOUND", f"The match has {current} events; there is no version {wanted}.")
    then = fold_up_to(services().store, match_id, wanted)
    shown = replay_view(then.state, seat, now)
    response = json_response({"id": match_id, "version": wanted, **shown})
    response.headers["ETag"] = f'"{wanted}"'
    return response
