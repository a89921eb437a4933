"""Every Redis key of the project is built here, and nowhere else.

Scheme: ``truc:{<tag>}:<what>``.

- ``truc:`` namespaces the project, so it can share a Redis with other things and
  a ``SCAN MATCH truc:*`` never sees foreign keys.
- ``{m:<match_id>}`` is a Redis Cluster *hash tag*: only the part between the
  braces is hashed, so every key of one match lives in the same slot. A Lua
  script or a MULTI that touches the keys of one match therefore runs unchanged
  on a cluster. Nothing ever touches two matches in one script or transaction.
- ``<what>`` names the key inside the match: ``events`` (the stream, the only
  source of truth) and ``unprojected`` (a mark holding the version of the latest
  append, cleared by the projector once it has caught up).

Match ids come from outside (URLs, job arguments), so they are validated: an id
may never smuggle ``{``, ``}`` or ``:`` into a key and change its slot or shape.
"""

from __future__ import annotations

import re

PREFIX = "truc"
_MATCH_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class InvalidMatchIdError(ValueError):
    """A match id that could not be used in a Redis key."""


def validate_match_id(match_id: str) -> str:
    """Return ``match_id`` unchanged if it is 1-64 of ``A-Z a-z 0-9 _ -``, else raise."""
    if not isinstance(match_id, str) or not _MATCH_ID.fullmatch(match_id):
        raise InvalidMatchIdError(f"invalid match id: {match_id!r}")
    return match_id


def _match_key(match_id: str, what: str) -> str:
    return f"{PREFIX}:{{m:{validate_match_id(match_id)}}}:{what}"


def match_events(match_id: str) -> str:
    """The match's event stream: entry ``n-0`` is the event of version ``n``."""
    return _match_key(match_id, "events")


def match_unprojected(match_id: str) -> str:
    """The match's "has unprojected events" mark (value: the latest appended version)."""
    return _match_key(match_id, "unprojected")


def match_tokens(match_id: str) -> str:
    """The match's append tokens (a hash: token key -> "first last fingerprint")."""
    return _match_key(match_id, "tokens")


def match_seed(match_id: str) -> str:
    """The secret seed behind the match's shuffled deals (outside the stream until revealed)."""
    return _match_key(match_id, "seed")


def player(player_id: str) -> str:
    """A registered player (a hash: id, name); shares its hash tag with the player's scoreboard keys."""
    return f"{PREFIX}:{{p:{validate_match_id(player_id)}}}:player"


def player_name(name: str) -> str:
    """Claims a player name, case-folded, so two players cannot share one (value: the player id)."""
    return f"{PREFIX}:name:{name.casefold()}"


def player_token(token_hash: str) -> str:
    """Maps the SHA-256 of a bearer token to its player id (the token itself is never stored)."""
    return f"{PREFIX}:token:{token_hash}"


# SCAN MATCH patterns for the backstop sweeps (braces are literal in Redis globs).
MATCH_EVENTS_PATTERN = f"{PREFIX}:{{m:*}}:events"
MATCH_UNPROJECTED_PATTERN = f"{PREFIX}:{{m:*}}:unprojected"


def match_id_from_key(key: str | bytes) -> str:
    """Recover the match id from any per-match key (e.g. a SCAN result)."""
    text = key.decode() if isinstance(key, bytes) else key
    start = text.index("{m:") + 3
    end = text.index("}", start)
    return validate_match_id(text[start:end])


# --- Read models (written by the projector, read by the API) -------------------------
#
# A match's views live in its own slot ({m:<id>}), beside its stream and mark, so one
# script can write the views and clear the mark together. A player's scoreboard keys
# share the player's hash tag ({p:<id>}). The lobby and scoreboard indexes are global
# keys on purpose: they are only ever written by single commands, never in a script.

LOBBY_STATUSES = ("waiting", "playing", "finished")
SCOREBOARD = f"{PREFIX}:scoreboard"
SCOREBOARD_MATCHES = f"{PREFIX}:scoreboard:matches"


class InvalidLobbyStatusError(ValueError):
    """A lobby status other than waiting, playing or finished."""


def match_views(match_id: str) -> str:
    """The match's read models (a hash: version, A, B, spectator, summary)."""
    return _match_key(match_id, "views")


def lobby(status: str) -> str:
    """The matches of one status (a sorted set: match id scored by creation time in ms)."""
    if status not in LOBBY_STATUSES:
        raise InvalidLobbyStatusError(f"invalid lobby status: {status!r}")
    return f"{PREFIX}:lobby:{status}"


def _player_key(player_id: str, what: str) -> str:
    # Player ids obey the same alphabet as match ids (see ``player`` above).
    return f"{PREFIX}:{{p:{validate_match_id(player_id)}}}:{what}"


def player_results(player_id: str) -> str:
    """What each finished match added to the player's totals (a hash: match id -> JSON)."""
    return _player_key(player_id, "results")


def player_totals(player_id: str) -> str:
    """The player's scoreboard row (a hash: name, matches_played, matches_won, ...)."""
    return _player_key(player_id, "totals")
