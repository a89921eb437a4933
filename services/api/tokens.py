"""A player's credentials: stream tickets (``POST /stream-tickets``) and token rotation (``POST /players/me/token``)."""
from __future__ import annotations

from datetime import UTC, datetime

from marshmallow import Schema, fields

from .api_error import ApiError
from .auth import bearer_token, required_player
from .players import token_hash
from .schemas import ErrorSchema
from .smorest import ApiBlueprint
from .tickets import StreamTickets
from .wiring import services

blp = ApiBlueprint("tokens", __name__, description="Stream tickets and token rotation.")


class TicketSchema(Schema):
    ticket = fields.String(metadata={"description": "Send it as `?ticket=` to open one stream, once."})
    expires_at = fields.String(metadata={"description": "ISO 8601 UTC: unused, the ticket is refused after this."})


class TokenSchema(Schema):
    token = fields.String(metadata={"description": "The player's new bearer token (shown only once)."})


_UNAUTHENTICATED = "`UNAUTHENTICATED`: no token, or one of no player."


@blp.route("/stream-tickets", methods=["POST"])
@blp.response(201, TicketSchema)
@blp.alt_response(401, schema=ErrorSchema, description=_UNAUTHENTICATED)
def issue_ticket() -> dict:
    """A single-use ticket, valid about a minute, that opens one stream as the caller (`?ticket=`).

    For clients that cannot send headers on a stream (a browser's EventSource): the bearer
    token never goes in a URL. Ask for one per connection, reconnections included.
    """
    player = required_player()
    services().limits.issue_credential(player.id)
    ticket, expires = StreamTickets(services().redis).issue(player.id, token_hash(bearer_token()))
    moment = datetime.fromtimestamp(expires, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    return {"ticket": ticket, "expires_at": moment}


@blp.route("/players/me/token", methods=["POST"])
@blp.response(201, TokenSchema)
@blp.alt_response(401, schema=ErrorSchema, description=_UNAUTHENTICATED)
def rotate_token() -> dict:
    """A new bearer token for the caller: the one sent stops working at once, on every server process."""
    player = required_player()
    services().limits.issue_credential(player.id)
    old_token = bearer_token()
    token = services().players.rotate(player, old_token)
    if token is None:  # another rotation of the same token won the race
        raise ApiError(401, "UNAUTHENTICATED", "This token does not belong to any player.")
    services().sessions.rotated(player.id, token_hash(old_token), token_hash(token))  # the same device's session
    return {"token": token}
