"""Bearer tokens: who is calling."""
from __future__ import annotations

from flask import request

from shared.observability.context import bind

from .context import services
from .errors import ApiError
from .players import Player


def _bearer() -> str | None:
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "UNAUTHENTICATED", "Send 'Authorization: Bearer <token>'.")
    return token.strip()


def optional_player() -> Player | None:
    """The calling player, None without credentials; 401 for credentials that match no one."""
    token = _bearer()
    return None if token is None else player_of(token)


def player_of(token: str) -> Player:
    """The player ``token`` belongs to; 401 if none."""
    player = services().players.by_token(token)
    if player is None:
        raise ApiError(401, "UNAUTHENTICATED", "This token does not belong to any player.")
    bind(player_id=player.id)  # every line logged for the rest of the request names the caller
    return player


def required_player() -> Player:
    player = optional_player()
    if player is None:
        raise ApiError(401, "UNAUTHENTICATED", "This call needs 'Authorization: Bearer <token>'.")
    return player
