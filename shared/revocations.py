"""Revoking bearer tokens: the token's key deleted in Redis, then its hash told to every API process.

Each API process remembers the tokens it looked up (``services/api/token_cache.py``), so an
authenticated request asks Redis nothing. Deleting a token's key alone would leave every
process that remembers it serving it until its entry expires; so the hash is published on
``keys.TOKENS_REVOKED`` too, and each process's one subscriber makes its cache forget it
(``services/api/revocation_listener.py``). Every revocation takes this one path: a rotated token, a
reconfigured bot's, and later a deleted session's or an erased player's.

Only hashes travel: the tokens themselves are never stored, logged or published.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from shared import keys

_TOKEN_HASH = re.compile(r"[0-9a-f]{64}")  # a SHA-256, as hex


def revoke(client: Any, token_hashes: Iterable[str]) -> int:
    """Delete the tokens of ``token_hashes``, then tell every API process; how many of them existed.

    One key per command: token keys carry no hash tag, so on a cluster they live in any slot.
    The keys go first: a process that has forgotten a token and looks it up again finds none.
    """
    hashes = [checked_hash(token_hash) for token_hash in token_hashes]
    deleted = sum(client.delete(keys.player_token(token_hash)) for token_hash in hashes)
    for token_hash in hashes:
        client.publish(keys.TOKENS_REVOKED, token_hash)
    return deleted


def checked_hash(token_hash: str) -> str:
    """``token_hash`` unchanged if it is a SHA-256 in lowercase hex, else raise ValueError."""
    if not isinstance(token_hash, str) or not _TOKEN_HASH.fullmatch(token_hash):
        raise ValueError(f"not a token hash: {token_hash!r}")
    return token_hash


def heard_hash(message: str | None) -> str | None:
    """The token hash a message on ``keys.TOKENS_REVOKED`` names; None if it names none (forget them all)."""
    return message if isinstance(message, str) and _TOKEN_HASH.fullmatch(message) else None
