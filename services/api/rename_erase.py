"""A player's own name: ``PATCH /players/me`` renames, ``DELETE /players/me`` erases (API.md: rename, erasure).

Both change the directory first (the one place a name is a fact), then every copy made to
serve it at once, before answering (:func:`shared.erasure.spread_name`): the stored views,
lobby lines and scoreboard rows, the archived records' headers, and every API process's
cached lines (told on ``keys.PLAYERS_RENAMED``). What is logged is the player's id, never a name.
"""
from __future__ import annotations

import logging

from flask import Response

from shared.erasure import InAMatchError, erase_player, spread_name

from .api_error import ApiError
from .auth import required_player
from .players import NameTakenError
from .schemas import ErrorSchema, PlayerCreateSchema, PlayerNameSchema
from .smorest import ApiBlueprint
from .wiring import services

blp = ApiBlueprint("me", __name__, description="The caller's own player: rename, erase.")
log = logging.getLogger(__name__)
_UNAUTHENTICATED = "`UNAUTHENTICATED`: no token, or one of no player."


@blp.route("/players/me", methods=["PATCH"])
@blp.arguments(PlayerCreateSchema)
@blp.response(200, PlayerNameSchema)
@blp.alt_response(401, schema=ErrorSchema, description=_UNAUTHENTICATED)
@blp.alt_response(409, schema=ErrorSchema, description="`NAME_TAKEN`: another player holds the name, or gave it "
                                                       "up less than `NAME_RESERVE_DAYS` ago")
def rename(body: dict):
    """Rename the caller (the rules of a registration): shown at once wherever they are shown. The old
    name stays reserved to them for `NAME_RESERVE_DAYS` (default 30): nobody else may take it meanwhile."""
    ctx, player = services(), required_player()
    try:
        renamed = ctx.players.rename(player, body["name"], ctx.name_reserve_seconds)
    except NameTakenError:
        isolated = f"\u2068{body['name']}\u2069"  # FSI ... PDI: a right-to-left name does not reorder the sentence
        raise ApiError(409, "NAME_TAKEN", "The name {name} is taken.", params={"name": isolated}) from None
    spread_name(ctx.redis, ctx.store.archive, player.id, renamed.name)
    log.info("player %s renamed", player.id)
    return {"id": renamed.id, "name": renamed.name}


@blp.route("/players/me", methods=["DELETE"])
@blp.response(204)
@blp.alt_response(401, schema=ErrorSchema, description=_UNAUTHENTICATED)
@blp.alt_response(409, schema=ErrorSchema, description="`IN_A_MATCH`: the caller sits in an unfinished match and "
                                                       "the server is set to refuse (`ERASE_IN_MATCH=refuse`)")
def erase() -> Response:
    """Erase the caller: every token stops working at once, the name is replaced everywhere it is shown by
    a placeholder (`erased player 7`), matches stay readable and auditable. Unfinished matches are
    resigned (R31; a waiting one created is cancelled) unless the server is set to refuse (409 `IN_A_MATCH`)."""
    ctx, player = services(), required_player()
    try:
        erased = erase_player(ctx.redis, ctx.store, ctx.store.archive, player.id, ctx.matches.notify,
                              resign=ctx.erase_in_match == "resign")
    except InAMatchError as seated:
        raise ApiError(409, "IN_A_MATCH", "You still play in match {match}: finish it before erasing your player.",
                       params={"match": seated.match_id}, match_id=seated.match_id) from None
    if erased is not None:  # this process's own cache, now: the other processes hear of it
        ctx.players.forget_tokens(erased.revoked)
    log.info("player %s erased", player.id)
    return Response(status=204)
