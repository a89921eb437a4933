"""What a match or player id may be, and random new ones: URL- and key-safe, and never starting
with '-' (a leading dash would read as an option on any command line, e.g. `truc audit -x…`).

Ids come from outside (URLs, job arguments) and become parts of Redis keys (shared/keys/):
an id may never smuggle ``{``, ``}`` or ``:`` into a key and change its slot or shape.
"""
from __future__ import annotations

import re
import secrets

ID_PATTERN = r"[A-Za-z0-9_-]{1,64}"  # match and player ids: safe in a key, a URL and a command line
_ID = re.compile(ID_PATTERN)


class InvalidMatchIdError(ValueError):
    """A match id that could not be used in a Redis key."""


def validate_match_id(match_id: str) -> str:
    """Return ``match_id`` unchanged if it is 1-64 of ``A-Z a-z 0-9 _ -``, else raise."""
    if not isinstance(match_id, str) or not _ID.fullmatch(match_id):
        raise InvalidMatchIdError(f"invalid match id: {match_id!r}")
    return match_id


def new_id(nbytes: int = 9) -> str:
    while True:
        candidate = secrets.token_urlsafe(nbytes)
        if not candidate.startswith("-"):
            return candidate
