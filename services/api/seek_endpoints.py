"""Endpoints of quick pairing and rematches (use cases in :mod:`.matchmaking`)."""
from __future__ import annotations

from flask import Response, url_for

from shared.eventstore.schema import iso_from_ms
from shared.readmodels.projection import match_view

from .app.application_errors import SeekNotFoundError
from .auth import required_player
from .json_responses import json_response
from .schemas import ErrorSchema, SeekSchema
from .smorest import ApiBlueprint
from .wiring import services

blp = ApiBlueprint("matchmaking", __name__, description="Seek an opponent of your rating; offer a rematch.")


@blp.route("/seeks", methods=["POST"])
@blp.arguments(SeekSchema)
@blp.response(201)
@blp.alt_response(409, schema=ErrorSchema, description="`SEEK_OPEN`: the caller has an open seek; "
                                                       "`TOO_MANY_MATCHES`: the caller sits in `MAX_PLAYING` matches.")
def open_seek(body: dict) -> Response:
    """Seek an opponent on these terms; when paired, the player stream says `paired` (the match is dealt)."""
    seek = services().matchmaker.seek(required_player(), body["rated"], body["rules"])
    return json_response({"id": seek.id, "player": seek.player_id, "rated": seek.rated, "rules": seek.rules,
                          "expires_at": iso_from_ms(seek.expires)}, 201)


@blp.route("/seeks/<id:seek_id>", methods=["DELETE"])
@blp.response(204)
@blp.alt_response(404, schema=ErrorSchema, description="`NOT_FOUND`: no open seek of the caller's has this id.")
def withdraw_seek(seek_id: str) -> Response:
    """Withdraw the caller's open seek."""
    if not services().matchmaker.pool.withdraw(required_player().id, seek_id):
        raise SeekNotFoundError(seek_id)
    return Response(status=204)


@blp.route("/matches/<id:match_id>/rematch", methods=["POST"])
@blp.response(201)
@blp.alt_response(202, description="`{\"offer\"}`: the offer stands until the other player asks too.")
@blp.alt_response(409, schema=ErrorSchema, description="`MATCH_NOT_FINISHED`, or `TOO_MANY_MATCHES`.")
def ask_rematch(match_id: str) -> Response:
    """Offer a rematch of a finished match; the other player's call makes it (same terms, first dealer swapped)."""
    ctx, player = services(), required_player()
    outcome, made = ctx.matchmaker.rematch(match_id, player)
    if made is None:
        expires = ctx.matchmaker.clock() + ctx.matchmaker.rematch_seconds * 1000
        return json_response({"offer": {"match_id": match_id, "by": player.id, "expires_at": iso_from_ms(expires)}},
                             202)
    response = json_response(match_view(made.match_id, made.version, made.state, made.seat), 201)
    response.headers["Location"] = url_for("reading.get_match", match_id=made.match_id)
    return response
