"""The audit log and step-by-step replay of a match, redacted for the caller."""
from __future__ import annotations

from flask import Response

from shared.eventstore.port import EventStore, StoredEvent
from shared.readmodels.projection import seated_ids
from shared.redaction import public_events
from shared.rules import Status, replay_view

from .api_error import ApiError, not_found
from .app import latest
from .auth import optional_player
from .client_address import client_address
from .json_responses import json_response
from .language import Plural
from .private_matches import check_state
from .schemas import ErrorSchema, EventLogSchema, EventsQuerySchema, ReplayQuerySchema
from .smorest import ApiBlueprint
from .wiring import services

_PAGE = 64  # events read at a time past the window

blp = ApiBlueprint("history", __name__, description="Every recorded event of a match, and the match at any version.")


def _seated(match_id: str):
    """The match's current state and the caller's seat in it (None: a spectator)."""
    match = latest(services().matches, match_id)
    if match.version == 0:
        raise not_found()
    player = optional_player()
    check_state(match.state, player)  # a private match that waits: 404 to all but its creator
    seat = match.state.seat_of(player.id) if player else None
    return match.version, match.state, seat


@blp.route("/matches/<id:match_id>/events", methods=["GET"])
@blp.arguments(EventsQuerySchema, location="query")
@blp.response(200, EventLogSchema)
@blp.alt_response(429, schema=ErrorSchema, description="`RATE_LIMITED` (`limit`: `events`): this client address read "
                                                       "`EVENT_READS_PER_MINUTE` event logs in the last minute.")
def events(query: dict, match_id: str) -> Response:
    """The audit log after version `after`: unplayed cards are null for all but their holder until the end."""
    services().limits.read_events(client_address())
    current, now, seat = _seated(match_id)
    store = services().store
    window = store.read(match_id, after=query["after"], limit=query["limit"])
    finished = now.status is Status.FINISHED
    known = window if finished else window + _rest_of_its_rounds(store, match_id, window, current)
    return json_response({"events": public_events(window, seat.value if seat else None, known, finished)})


def _rest_of_its_rounds(
    store: EventStore, match_id: str, window: list[StoredEvent], up_to: int,
) -> list[StoredEvent]:
    """The events after ``window`` up to the deal that ends the last round it shows cards of.

    A dealt card is shown once played in its round, which may come after the window: this
    reads on to the next deal (one round, a few dozen events at most), never the whole match.
    A match created with fixture decks shows cards of every round they cover. Never past
    ``up_to``, the match's version when the request began: a move made while the log is
    being read must not show in an answer whose events end before it.
    """
    if not window:
        return []
    deck_rounds = len(window[0].data.get("decks") or ()) if window[0].type == "match_created" else 0
    rest, after = [], window[-1].version
    while after < up_to:
        page = store.read(match_id, after=after, limit=min(_PAGE, up_to - after))
        for stored in page:
            if stored.type == "round_dealt" and stored.data.get("round", 0) > deck_rounds:
                return rest  # a new round: the window's rounds are closed
            rest.append(stored)
        if not page:
            return rest
        after = page[-1].version
    return rest


@blp.route("/matches/<id:match_id>/replay", methods=["GET"])
@blp.arguments(ReplayQuerySchema, location="query")
@blp.response(200)
@blp.alt_response(429, schema=ErrorSchema, description="`RATE_LIMITED` (`limit`: `replays`): this client address asked "
                                                       "`REPLAYS_PER_MINUTE` replays in the last minute.")
def replay(query: dict, match_id: str) -> Response:
    """The match view right after event `version`; once the match is finished both hands show."""
    services().limits.replay(client_address())
    current, now, seat = _seated(match_id)
    wanted = query["version"]
    if wanted > current:
        raise ApiError(404, "NOT_FOUND", Plural("The match has {count} event; there is no version {wanted}.",
                                                "The match has {count} events; there is no version {wanted}.",
                                                current), params={"wanted": wanted})
    then = services().checkpoints.at(services().store, match_id, wanted)  # a round's fold, not `wanted` events
    shown = replay_view(then.state, seat, now, services().read_models.names(seated_ids(now)))
    response = json_response({"id": match_id, "version": wanted, **shown})
    response.headers["ETag"] = f'"{wanted}"'
    return response
