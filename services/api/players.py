"""Registered players and their bearer tokens (only a hash of each token is stored)."""
from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any

from shared import keys
from shared.ids import new_id

from .token_cache import TokenCache


@dataclass(frozen=True)
class Player:
    id: str
    name: str


_CURRENT_TOKEN = "token_hash"  # a configured player's field: the hash of its one valid token
RESERVED_NAMES = {"bot"}  # the built-in bot's, registered by configuration rather than by a client


class NameTakenError(Exception):
    """Another player already has this name (names are unique, case-insensitively)."""


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class PlayerRegistry:
    def __init__(self, client: Any, known_tokens: TokenCache[Player] | None = None) -> None:
        self._client = client
        # Every authenticated request looks its token up. A remembered answer may be up to
        # the cache's TTL old, which is safe because a player's token is never pointed at
        # another player and a name never changes; the one token ever revoked is the bot's,
        # when the API restarts with another BOT_TOKEN (a process still running keeps a
        # cached old token for at most the TTL). Only found players are remembered: an unknown token
        # always asks Redis, so a player registered since is found at once, and forged
        # tokens cannot crowd real ones out. Keyed by the token's hash, like Redis.
        self._known_tokens: TokenCache[Player] = TokenCache() if known_tokens is None else known_tokens

    def register(self, name: str) -> tuple[Player, str]:
        """A new player and its bearer token (shown once, never stored)."""
        if name.casefold() in RESERVED_NAMES:
            raise NameTakenError(name)
        player = Player(new_id(12), name)
        token = secrets.token_urlsafe(32)
        token_hash = _token_hash(token)
        # One round trip, in this order. The name is claimed last: a lost race undoes the
        # two writes before it, and a crash before the claim leaves only a player nobody
        # can name or log in as twice.
        pipe = self._client.pipeline(transaction=False)
        pipe.hset(keys.player(player.id), mapping={"id": player.id, "name": name})
        pipe.set(keys.player_token(token_hash), player.id)
        pipe.set(keys.player_name(name), player.id, nx=True)
        # A claim that answers "taken" may be our own, replayed by the client after a lost reply.
        if not pipe.execute()[2] and self._client.get(keys.player_name(name)) != player.id.encode():
            self._client.delete(keys.player(player.id), keys.player_token(token_hash))
            raise NameTakenError(name)
        self._known_tokens.put(token_hash, player)  # its first request need not ask Redis
        return player, token

    def ensure(self, player_id: str, name: str, token: str) -> Player:
        """A player with a fixed id and a token given by configuration (the built-in bot)."""
        player = Player(player_id, name)
        self.seat_token(player_id, name, token)
        claimed = self._client.set(keys.player_name(name), player_id, nx=True)
        if not claimed and self._client.get(keys.player_name(name)) != player_id.encode():
            raise NameTakenError(name)
        return player

    def seat_token(self, player_id: str, name: str, token: str | None) -> None:
        """Make ``token`` the configured player's only token; None: it has none.

        The player keeps the hash of its current token, so a token set before (a rotated,
        perhaps leaked secret) is deleted when another one, or none, is configured.
        """
        new_hash = None if token is None else _token_hash(token)
        old_hash = self._client.hget(keys.player(player_id), _CURRENT_TOKEN)
        if new_hash is not None:  # the new token works before the old one stops
            self._client.set(keys.player_token(new_hash), player_id)
            self._client.hset(keys.player(player_id), mapping={"id": player_id, "name": name,
                                                                _CURRENT_TOKEN: new_hash})
        elif old_hash is not None:
            self._client.hdel(keys.player(player_id), _CURRENT_TOKEN)
        if old_hash is not None and old_hash.decode() != new_hash:
            self._client.delete(keys.player_token(old_hash.decode()))
            self._known_tokens.forget(old_hash.decode())

    def by_token(self, token: str) -> Player | None:
        token_hash = _token_hash(token)
        player = self._known_tokens.get(token_hash)
        if player is None:
            player_id = self._client.get(keys.player_token(token_hash))
            player = None if player_id is None else self.by_id(player_id.decode())
            if player is not None:
                self._known_tokens.put(token_hash, player)
        return player

    def by_id(self, player_id: str) -> Player | None:
        try:
            fields = self._client.hgetall(keys.player(player_id))
        except ValueError:  # not a well-formed id: no such player
            return None
        if not fields:
            return None
        return Player(fields[b"id"].decode(), fields[b"name"].decode())
