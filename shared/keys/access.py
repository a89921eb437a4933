"""Who may ask, and how much: registered players, the names they claim, their tokens and tickets,
and the units of the abuse limits counted against an address or a player."""
from __future__ import annotations

import re

from shared.keys.namespace import PREFIX, player_key


def player(player_id: str) -> str:
    """A registered player (a hash: id, name); shares its hash tag with the player's scoreboard keys."""
    return player_key(player_id, "player")


def player_name(name: str, looks: bool = False) -> str:
    """Claims a name (value: the player id) by its comparison form, or (``looks``) by its look-alike form."""
    return f"{PREFIX}:looks:{name}" if looks else f"{PREFIX}:name:{name.casefold()}"


def player_given_up(player_id: str) -> str:
    """The claims of the names a player gave up by a rename (a set of claim keys), reserved to it a while."""
    return player_key(player_id, "given-up")


NAME_CLAIMS_PATTERN, LOOKALIKES_CLAIMED = f"{PREFIX}:name:*", f"{PREFIX}:looks"  # the second: claims made of skeleton N


def player_token(token_hash: str) -> str:
    """Maps the SHA-256 of a bearer token to its player id (the token itself is never stored)."""
    return f"{PREFIX}:token:{token_hash}"


def player_sessions(player_id: str) -> str:
    """A player's sessions, one a device (a hash: session id -> JSON of its token's hash and creation time)."""
    return player_key(player_id, "sessions")


def player_seen(player_id: str) -> str:
    """When each of a player's tokens was last used (a hash: token hash -> epoch ms, written at most once a minute)."""
    return player_key(player_id, "seen")


def stream_ticket(ticket_hash: str) -> str:
    """Maps the SHA-256 of a stream ticket to its player id, until it expires or is used (one key: one slot)."""
    return f"{PREFIX}:ticket:{ticket_hash}"


TOKENS_REVOKED = f"{PREFIX}:tokens-revoked"  # a pub/sub channel: the hash of each token revoked (shared/revocations.py)
PLAYERS_RENAMED = f"{PREFIX}:players-renamed"  # a pub/sub channel: the id of each player renamed or erased
ERASED_PLAYERS = f"{PREFIX}:erased"  # a counter: the number in the last erased player's placeholder


def limit(name: str, subject: str) -> str:
    """A client address's or player's units of an abuse limit (shared/limits.py); an IPv6 subject's colons end it."""
    if not re.fullmatch(r"[a-z_]{1,32}:[A-Za-z0-9_.:/-]{1,64}", f"{name}:{subject}"):
        raise ValueError(f"invalid limit key: {name!r}, {subject!r}")
    return f"{PREFIX}:limit:{name}:{subject}"
