"""Endpoints that read the ratings read model: the leaderboard and a player's rating history."""
from __future__ import annotations

from typing import Any

from flask import Response

from shared.eventstore.schema import iso_from_ms
from shared.ratings.rating_fold import NEW_PLAYER, PlayerRating

from .api_error import not_found
from .json_responses import json_response
from .schemas import WindowQuerySchema
from .smorest import ApiBlueprint
from .wiring import services

blp = ApiBlueprint("ratings", __name__, description="Glicko-2 ratings: the leaderboard and rating histories.")


def rating_fields(rating: PlayerRating | None) -> dict[str, Any]:
    """A player's ``rating`` as GET /players/{id} adds it (a new player's start, provisional)."""
    rating = rating or NEW_PLAYER
    return {
        "value": rating.rating.value, "rd": rating.rating.rd, "volatility": rating.rating.volatility,
        "provisional": rating.provisional, "games": rating.games,
        "wins": rating.wins, "losses": rating.games - rating.wins,
        "shown": f"{rating.rating.value:.0f}{'?' if rating.provisional else ''}",
    }


@blp.route("/leaderboard", methods=["GET"])
@blp.arguments(WindowQuerySchema, location="query")
@blp.response(200)
def leaderboard(query: dict) -> Response:
    """Non-provisional players by rating, highest first; ``after`` skips that many."""
    ctx = services()
    ranked = ctx.read_models.ratings().leaderboard(query["after"], query["limit"])
    named = ctx.read_models.names([player_id for player_id, _ in ranked])  # the directory: one round trip
    players = [{"id": player_id, "name": named.get(player_id, player_id),
                "rating": rating.rating.value, "rd": rating.rating.rd, "games": rating.games}
               for player_id, rating in ranked]
    return json_response({"players": players})


@blp.route("/players/<id:player_id>/ratings", methods=["GET"])
@blp.arguments(WindowQuerySchema, location="query")
@blp.response(200)
def rating_history(query: dict, player_id: str) -> Response:
    """The player's rating after each rated match, oldest first; ``after`` skips that many."""
    ctx = services()
    if ctx.players.by_id(player_id) is None:
        raise not_found("player")
    changes = ctx.read_models.ratings().history(player_id, query["after"], query["limit"])
    return json_response({"ratings": [{
        "match_id": change.match_id, "at": iso_from_ms(change.at), "before": change.before.rating.value,
        "after": change.after.rating.value, "rd": change.after.rating.rd, "opponent": change.opponent,
        "won": change.won,
    } for change in changes]})
