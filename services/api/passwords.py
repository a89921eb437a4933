"""Players' passwords: an argon2id hash (argon2-cffi's defaults) in the player's record, never the password.

A password is optional: a player without one keeps the token-only flow (the registration's
token is their only key). With one, ``POST /sessions`` gives any device a token of its own.

Hashing costs tens of milliseconds of CPU and 64 MiB by design, so it runs off gevent's loop
(:func:`shared.offloop.off_loop`): the process serves other requests meanwhile. A login for
a name nobody has, or a player with no password, is checked against a dummy hash all the
same, so the answer takes as long as a wrong password's and tells nothing about the name.
"""
from __future__ import annotations

from functools import cache
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from shared import keys
from shared.offloop import off_loop

PASSWORD_FIELD = "password_hash"  # in the player's hash (keys.player)
MIN_LENGTH, MAX_LENGTH = 8, 128  # characters (API.md); argon2 hashes any length, the cap bounds the work

_hasher = PasswordHasher()


@cache
def _dummy_hash() -> str:
    """A hash no password is checked to match: what an unknown name is verified against (made once, lazily)."""
    return _hasher.hash("no player has this password, it only takes the time of one")


def _matches(stored: str, password: str) -> bool:
    try:
        return _hasher.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


class Passwords:
    """The password hashes kept in the players' records on ``client``."""

    def __init__(self, client: Any) -> None:
        self._client = client

    @staticmethod
    def hash(password: str) -> str:
        """The argon2id hash of ``password``, computed off the loop (before anything is written)."""
        return off_loop(_hasher.hash, password)

    def store(self, player_id: str, hashed: str) -> None:
        self._client.hset(keys.player(player_id), PASSWORD_FIELD, hashed)

    def stored(self, player_id: str) -> str | None:
        raw = self._client.hget(keys.player(player_id), PASSWORD_FIELD)
        return None if raw is None else raw.decode()

    def is_set(self, player_id: str) -> bool:
        return bool(self._client.hexists(keys.player(player_id), PASSWORD_FIELD))

    def check(self, player_id: str | None, password: str) -> bool:
        """Whether ``password`` is the player's; False for no player or none set, after the same work."""
        stored = None if player_id is None else self.stored(player_id)
        if stored is None:
            off_loop(_matches, _dummy_hash(), password)
            return False
        matched = off_loop(_matches, stored, password)
        if matched and _hasher.check_needs_rehash(stored):  # older parameters: kept up to date on success
            self.store(player_id, self.hash(password))
        return matched
