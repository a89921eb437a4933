"""The shape every key of the project takes: ``truc:{<tag>}:<what>``, and the ids read back from it.

- ``truc:`` namespaces the project: it can share a Redis, and ``SCAN MATCH truc:*`` sees no foreign key.
- ``{m:<match_id>}`` is a Redis Cluster *hash tag*: every key of one match lives in one slot, so a
  script or MULTI on one match runs unchanged on a cluster. None touches two matches at once.
  ``{p:<player_id>}`` does the same for one player's keys.

Ids come from outside (URLs, job arguments), so they are validated (by the rule of shared/ids.py,
re-exported here): an id may never smuggle ``{``, ``}`` or ``:`` into a key and change its slot or shape.
"""
from __future__ import annotations

from shared.ids import ID_PATTERN, InvalidMatchIdError, validate_match_id  # noqa: F401 (keys' own alphabet)

PREFIX = "truc"


def match_key(match_id: str, what: str) -> str:
    """A key in the match's slot (its hash tag)."""
    return f"{PREFIX}:{{m:{validate_match_id(match_id)}}}:{what}"


def player_key(player_id: str, what: str) -> str:
    """A key in the player's slot; player ids obey the match ids' alphabet."""
    return f"{PREFIX}:{{p:{validate_match_id(player_id)}}}:{what}"


def _id_from_key(key: str | bytes, tag: str) -> str:
    """The id in the hash tag ``{<tag>:<id>}`` of ``key``."""
    text = key.decode() if isinstance(key, bytes) else key
    start = text.index(f"{{{tag}:") + len(tag) + 2
    end = text.index("}", start)
    return validate_match_id(text[start:end])


def match_id_from_key(key: str | bytes) -> str:
    """Recover the match id from any per-match key (e.g. a SCAN result)."""
    return _id_from_key(key, "m")


def player_id_from_key(key: str | bytes) -> str:
    """Recover the player id from any per-player key (e.g. a SCAN result)."""
    return _id_from_key(key, "p")
