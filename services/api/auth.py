"""Bearer tokens and stream tickets: who is calling."""
from __future__ import annotations

from flask import g, request

from shared.observability.log_context import bind

from .api_error import ApiError
from .players import Player, token_hash
from .tickets import StreamTickets
from .wiring import services


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
    return _bound(player, token_hash(token))


def required_player() -> Player:
    player = optional_player()
    if player is None:
        raise ApiError(401, "UNAUTHENTICATED", "This call needs 'Authorization: Bearer <token>'.")
    return player


def bearer_token() -> str:
    """The token of the Authorization header (after :func:`required_player` accepted it)."""
    token = _bearer()
    if token is None:
        raise ApiError(401, "UNAUTHENTICATED", "This call needs 'Authorization: Bearer <token>'.")
    return token


def stream_caller(query: dict) -> Player | None:
    """A stream's caller: the Authorization header's, else the ``?ticket=``'s (used up by this), else None.

    A bearer token in the URL (``?token=``, which older browser tables sent) is refused: URLs
    end up in proxy logs and browser history, which a ticket, single-use and short-lived, may.
    """
    if "token" in query:
        raise ApiError(401, "UNAUTHENTICATED", "A token is never accepted in a URL: send 'Authorization: Bearer "
                                               "<token>', or a ticket from POST /stream-tickets as '?ticket='.")
    player = optional_player()
    if player is not None or query.get("ticket") is None:
        return player
    ctx = services()
    redeemed = StreamTickets(ctx.redis).redeem(query["ticket"])
    player = None if redeemed is None else ctx.players.by_id(redeemed[0])
    if player is None:
        raise ApiError(401, "UNAUTHENTICATED", "This ticket is unknown, used or expired: ask for a new one.")
    return _bound(player, redeemed[1])


def credential() -> str | None:
    """The hash of the token this request was made with (directly or by its stream ticket), if any."""
    return g.get("credential")


def _bound(player: Player, hashed: str) -> Player:
    bind(player_id=player.id)  # every line logged for the rest of the request names the caller
    g.credential = hashed  # a stream made with it ends once it is revoked (stream.py)
    last_seen = services().last_seen
    if last_seen is not None:  # noted in memory, written in the background (last_seen.py)
        last_seen.saw(player.id, hashed)
    return player
