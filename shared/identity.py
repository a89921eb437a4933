"""What a player id and a player name may be: one rule for every door a player comes in by.

The API registers names and mints ids; an imported match brings its own, from a file
anyone could have written. Both must hold to the same rules, or an import could seat a
player the API would never let in: an id that changes the shape of a Redis key (``{``,
``}``, ``:``), or a name carrying markup, terminal escapes or a bidi override into every
screen that shows it. So the rules live here, and the API's schema and the import read
them from here.

- A player id obeys the alphabet of match ids (:func:`shared.keys.validate_match_id`):
  1-64 of ``A-Z a-z 0-9 _ -``. It becomes part of Redis keys.
- A player name is 1-32 letters, digits, spaces, ``_`` or ``-`` (ASCII).
"""
from __future__ import annotations

import re

from shared import keys

NAME_PATTERN = r"[A-Za-z0-9 _-]{1,32}"
NAME_RULE = "1-32 letters, digits, spaces, '_' or '-'."
ID_RULE = "1-64 letters, digits, '_' or '-'."
_NAME = re.compile(NAME_PATTERN)


class InvalidPlayerIdError(ValueError):
    """A player id the API would never have minted: it could not be used in a Redis key."""


class InvalidPlayerNameError(ValueError):
    """A player name the API would refuse at registration."""


def validate_player_id(player_id: object) -> str:
    """Return ``player_id`` unchanged if it is 1-64 of ``A-Z a-z 0-9 _ -``, else raise."""
    try:
        return keys.validate_match_id(player_id)  # type: ignore[arg-type]
    except keys.InvalidMatchIdError:
        raise InvalidPlayerIdError(f"invalid player id: {player_id!r}") from None


def validate_player_name(name: object) -> str:
    """Return ``name`` unchanged if it is 1-32 of ``A-Z a-z 0-9``, space, ``_`` or ``-``, else raise.

    The whole string must match (``fullmatch``): a trailing newline is not allowed either.
    """
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise InvalidPlayerNameError(f"invalid player name: {name!r}")
    return name
