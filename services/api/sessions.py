"""A player's sessions: one bearer token per device, each listed and revocable on its own.

A session is a token of the player's (``keys.player_token``, exactly as the registration's:
authentication reads nothing new) plus a line in the player's ``keys.player_sessions`` hash
naming it by an id of its own, with its token's hash and when it was opened. When each was
last used is kept apart (``keys.player_seen``, by :mod:`.last_seen`, off the request's path).

Revoking a session takes the one path of every revocation (:func:`shared.revocations.revoke`):
its token's key is deleted and its hash published, so every API process forgets it within a
second. A token from before sessions (or the registration's) is adopted as a session the
first time its player lists them, so every token a player holds can be seen and revoked.
"""
from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from shared import keys
from shared.ids import new_id
from shared.revocations import revoke

from .players import Player, token_hash
from .token_cache import TokenCache

_CURRENT_TOKEN = "token_hash"  # the player's field naming its registration's (or rotated) token: see players.py


@dataclass(frozen=True)
class Session:
    id: str
    token_hash: str
    created_at_ms: int
    last_seen_ms: int | None


class SessionRegistry:
    """The sessions of the players on ``client``; ``known_tokens``: this process's token cache."""

    def __init__(self, client: Any, known_tokens: TokenCache[Player] | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self._client = client
        self._known_tokens = known_tokens
        self._clock = clock

    def open(self, player: Player) -> tuple[str, str]:
        """A new session of ``player``: its id and its token (shown once, never stored)."""
        token = secrets.token_urlsafe(32)
        hashed = token_hash(token)
        session_id, now = new_id(12), self._now_ms()
        pipe = self._client.pipeline(transaction=False)
        pipe.set(keys.player_token(hashed), player.id)
        pipe.hset(keys.player_sessions(player.id), session_id, _line(hashed, now))
        pipe.hset(keys.player_seen(player.id), hashed, now)
        pipe.execute()
        if self._known_tokens is not None:
            self._known_tokens.put(hashed, player)  # its first request need not ask Redis
        return session_id, token

    def adopt(self, player_id: str, hashed: str) -> str:
        """The id of the session holding the token of hash ``hashed``, made now if it has none."""
        for session in self.of_player(player_id):
            if session.token_hash == hashed:
                return session.id
        return self.first(player_id, hashed)

    def first(self, player_id: str, hashed: str) -> str:
        """The session of a player just registered, holding its first token (of hash ``hashed``): its id."""
        session_id = new_id(12)
        self._client.hset(keys.player_sessions(player_id), session_id, _line(hashed, self._now_ms()))
        return session_id

    def of_player(self, player_id: str) -> list[Session]:
        """The player's sessions, oldest first."""
        pipe = self._client.pipeline(transaction=False)
        pipe.hgetall(keys.player_sessions(player_id))
        pipe.hgetall(keys.player_seen(player_id))
        lines, seen = pipe.execute()
        sessions = []
        for session_id, raw in lines.items():
            line = orjson.loads(raw)
            last = seen.get(line["token_hash"].encode())
            sessions.append(Session(session_id.decode(), line["token_hash"], line["created_at"],
                                    None if last is None else int(last)))
        return sorted(sessions, key=lambda session: (session.created_at_ms, session.id))

    def listed(self, player_id: str, current_hash: str | None) -> list[Session]:
        """The player's sessions, the caller's own among them (adopted if it predates sessions)."""
        sessions = self.of_player(player_id)
        if current_hash is not None and all(session.token_hash != current_hash for session in sessions):
            self.adopt(player_id, current_hash)
            sessions = self.of_player(player_id)
        return sessions

    def revoke(self, player_id: str, session_id: str) -> bool:
        """End one session: its token stops working on every process; False if the player has no such session."""
        raw = self._client.hget(keys.player_sessions(player_id), session_id)
        if raw is None:
            return False
        hashed = orjson.loads(raw)["token_hash"]
        self._end(player_id, [session_id], [hashed])
        return True

    def revoke_all(self, player_id: str) -> int:
        """End every session of the player, and its registration's token (erasure); how many tokens existed."""
        sessions = self.of_player(player_id)
        current = self._client.hget(keys.player(player_id), _CURRENT_TOKEN)
        hashes = {session.token_hash for session in sessions} | ({current.decode()} if current else set())
        pipe = self._client.pipeline(transaction=False)
        pipe.delete(keys.player_sessions(player_id), keys.player_seen(player_id))
        pipe.hdel(keys.player(player_id), _CURRENT_TOKEN)
        pipe.execute()
        return self._revoked(sorted(hashes))

    def revoke_others(self, player_id: str, kept_hash: str | None) -> int:
        """End every session of the player but the one holding ``kept_hash`` (a changed password
        logs the other devices out); the registration's token too, unless it is the one kept.
        How many tokens were ended."""
        sessions = [session for session in self.of_player(player_id) if session.token_hash != kept_hash]
        current = self._client.hget(keys.player(player_id), _CURRENT_TOKEN)
        hashes = {session.token_hash for session in sessions}
        if current is not None and current.decode() != kept_hash:
            hashes.add(current.decode())
        if hashes:
            self._end(player_id, [session.id for session in sessions], sorted(hashes))
        return len(hashes)

    def rotated(self, player_id: str, old_hash: str, new_hash: str) -> None:
        """The session that held ``old_hash`` (``POST /players/me/token``) holds ``new_hash`` now."""
        for session in self.of_player(player_id):
            if session.token_hash == old_hash:
                pipe = self._client.pipeline(transaction=False)
                pipe.hset(keys.player_sessions(player_id), session.id, _line(new_hash, session.created_at_ms))
                pipe.hdel(keys.player_seen(player_id), old_hash)
                pipe.execute()
                return

    def _end(self, player_id: str, session_ids: list[str], hashes: list[str]) -> None:
        pipe = self._client.pipeline(transaction=False)
        pipe.hget(keys.player(player_id), _CURRENT_TOKEN)
        if session_ids:  # none: only the registration's token, which no session line holds
            pipe.hdel(keys.player_sessions(player_id), *session_ids)
        pipe.hdel(keys.player_seen(player_id), *hashes)
        current = pipe.execute()[0]
        if current is not None and current.decode() in hashes:  # the registration's token: the player's no longer
            self._client.hdel(keys.player(player_id), _CURRENT_TOKEN)
        self._revoked(hashes)

    def _revoked(self, hashes: list[str]) -> int:
        existed = revoke(self._client, hashes)
        if self._known_tokens is not None:
            for hashed in hashes:
                self._known_tokens.forget(hashed)
        return existed

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)


def _line(hashed: str, created_at_ms: int) -> bytes:
    return orjson.dumps({"token_hash": hashed, "created_at": created_at_ms})
