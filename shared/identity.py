"""What a player id and a player name may be: one rule for every door a player comes in by.

The API registers names and mints ids; an imported match brings its own, from a file
anyone could have written. Both must hold to the same rules, or an import could seat a
player the API would never let in: an id that changes the shape of a Redis key (``{``,
``}``, ``:``), or a name carrying markup, terminal escapes or a bidi override into every
screen that shows it. So the rules live here, and the API's schema and the import read
them from here.

- A player id obeys the alphabet of match ids (:func:`shared.keys.validate_match_id`):
  1-64 of ``A-Z a-z 0-9 _ -``. It becomes part of Redis keys.
- A player name is one the API keeps (:func:`shared.names.normalise`: the PRECIS Nickname
  profile, NFC, 1-32 characters), or one it kept before: before names could be in any
  script (1-32 ASCII letters, digits, spaces, ``_`` or ``-``, spaces as they were typed), or
  before characters that show as nothing were refused (:func:`shared.names.profile_form`:
  a recorded match seating ``alice`` and a Braille blank still audits and imports; the
  name is no screen's danger, and its skeleton is ``alice``'s).
"""
from __future__ import annotations

import re

from shared import keys, names

NAME_RULE = names.RULE
ID_RULE = "1-64 letters, digits, '_' or '-'."
_LEGACY_NAME = re.compile(r"[A-Za-z0-9 _-]{1,32}")  # the rule of names registered before any script was


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
    """Return ``name`` unchanged if the API keeps it as it is (or kept it so, before), else raise.

    A name the profile would still change (NFD, untrimmed spaces) is not one the API wrote;
    the legacy ASCII rule must match the whole string: a trailing newline is refused too.
    """
    if isinstance(name, str) and _LEGACY_NAME.fullmatch(name):
        return name
    try:
        if names.profile_form(name) == name:  # what normalise keeps, or kept before it refused blanks
            return name  # type: ignore[return-value]
    except names.InvalidNameError:
        pass
    raise InvalidPlayerNameError(f"invalid player name: {name!r}")
