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


RESERVED_NAMES = {"bot"}  # the built-in bot's, registered by configuration rather than by a client


class NameTakenError(Exception):
    """Another player already has this name (names are unique, case-insensitively)."""


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class PlayerRegistry:
    def __init__(self, client: Any, known_tokens: TokenCache[Player] | None = None) -> None:
        self._client = client
        # Every authenticated request looks its token up. A remembered answer may be up to
        # the cache's TTL old, which is safe because a token, once handed out, is never
        # revoked or pointed at another player (register and ensure only ever create
        # token keys; register's one delete undoes a token it never handed out), and a
        # player's name never changes. Only found players are remembered: an unknown token
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
        self._client.hset(keys.player(player_id), mapping={"id": player_id, "name": name})
        self._client.set(keys.player_token(_token_hash(token)), player_id)
        claimed = self._client.set(keys.player_name(name), player_id, nx=True)
        if not claimed and self._client.get(keys.player_name(name)) != player_id.encode():
            raise NameTakenError(name)
        return player

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
