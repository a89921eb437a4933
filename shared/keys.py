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
from functools import cache

from redis.crc import key_slot

PREFIX = "truc"
ID_PATTERN = r"[A-Za-z0-9_-]{1,64}"  # match and player ids: safe in a key, a URL and a command line
_MATCH_ID = re.compile(ID_PATTERN)


class InvalidMatchIdError(ValueError):
    """A match id that could not be used in a Redis key."""


def validate_match_id(match_id: str) -> str:
    """Return ``match_id`` unchanged if it is 1-64 of ``A-Z a-z 0-9 _ -``, else raise."""
    if not isinstance(match_id, str) or not _MATCH_ID.fullmatch(match_id):
        raise InvalidMatchIdError(f"invalid match id: {match_id!r}")
    return match_id


def _match_key(match_id: str, what: str) -> str:
    return f"{PREFIX}:{{m:{validate_match_id(match_id)}}}:{what}"


def _player_key(player_id: str, what: str) -> str:
    # Player ids obey the same alphabet as match ids.
    return f"{PREFIX}:{{p:{validate_match_id(player_id)}}}:{what}"


def _id_from_key(key: str | bytes, tag: str) -> str:
    """The id in the hash tag ``{<tag>:<id>}`` of ``key``."""
    text = key.decode() if isinstance(key, bytes) else key
    start = text.index(f"{{{tag}:") + len(tag) + 2
    end = text.index("}", start)
    return validate_match_id(text[start:end])


def match_events(match_id: str) -> str:
    """The match's event stream: entry ``n-0`` is the event of version ``n``."""
    return _match_key(match_id, "events")


def match_unprojected(match_id: str) -> str:
    """The match's "has unprojected events" mark (value: the latest appended version)."""
    return _match_key(match_id, "unprojected")


# The unprojected matches, countable without scanning the keyspace: one set on one server;
# on a Redis Cluster one set per slot, named with a hash tag of that slot, so the scripts
# that set or clear a match's mark update the set of its own slot in the same atomic step.
UNPROJECTED_INDEX = f"{PREFIX}:unprojected"
SLOTS = 16384


def unprojected_index(match_id: str, per_slot: bool) -> str:
    """The set that lists ``match_id`` while it carries its mark (``per_slot``: on a cluster)."""
    if not per_slot:
        return UNPROJECTED_INDEX
    return _slot_index(key_slot(f"m:{validate_match_id(match_id)}".encode()))


def unprojected_indexes(per_slot: bool) -> list[str]:
    """Every set :func:`unprojected_index` may name."""
    return [_slot_index(slot) for slot in range(SLOTS)] if per_slot else [UNPROJECTED_INDEX]


def _slot_index(slot: int) -> str:
    return f"{PREFIX}:{{{_slot_tags()[slot]}}}:unprojected"


@cache
def _slot_tags() -> list[str]:
    """A short hash tag for each cluster slot (found once, ~0.1 s): ``s<n>`` hashes to it."""
    tags: dict[int, str] = {}
    n = 0
    while len(tags) < SLOTS:
        tags.setdefault(key_slot(f"s{n}".encode()), f"s{n}")
        n += 1
    return [tags[slot] for slot in range(SLOTS)]


def match_tokens(match_id: str) -> str:
    """The match's append tokens (a hash: token key -> "first last fingerprint")."""
    return _match_key(match_id, "tokens")


def match_refusals(match_id: str) -> str:
    """The match's remembered refused requests (a hash like the tokens', capped, expiring)."""
    return _match_key(match_id, "refusals")


def match_catch_up(match_id: str) -> str:
    """Set by an append that asked the projector for a catch-up; cleared by any read of the stream.

    While it is set, a catch-up job is queued that has not read the stream yet, so a
    further append needs no job of its own (see ``RedisEventStore.append_events``).
    """
    return _match_key(match_id, "catchup")


def match_seed(match_id: str) -> str:
    """The secret seed behind the match's shuffled deals (outside the stream until revealed)."""
    return _match_key(match_id, "seed")


def player(player_id: str) -> str:
    """A registered player (a hash: id, name); shares its hash tag with the player's scoreboard keys."""
    return _player_key(player_id, "player")


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
    return _id_from_key(key, "m")


# --- Read models (written by the projector, read by the API) -------------------------
#
# A match's views live in its own slot ({m:<id>}), beside its stream and mark, so one
# script can write the views and clear the mark together. A player's scoreboard keys
# share the player's hash tag ({p:<id>}). The lobby and scoreboard indexes are global
# keys on purpose: they are only ever written by single commands, never in a script.
#
# Generations: every read-model key belongs to one generation, so a rebuild can fill a
# new generation beside the one being served and then switch reads over in one step.
# Generation N >= 1 appends ``:g<N>`` to the key; generation 0 keeps the plain names, so
# read models written before generations existed are generation 0 and need no migration.
# ``READ_MODELS`` (a hash, see shared/readmodels/generations.py) says which generation reads
# use. Streams, marks and players are not read models: they have no generation.

LOBBY_STATUSES = ("waiting", "playing", "finished")
READ_MODELS = f"{PREFIX}:readmodels"
VIEWS_CHANGED = f"{PREFIX}:views-changed"  # a pub/sub channel: the match id of every views write
# Matches the projector parked on an event it cannot fold (a hash: match id -> JSON record,
# see services/projector/poison.py). Not per generation: the poison is in the stream, which
# every generation folds. A global key written by single commands only.
PARKED = f"{PREFIX}:parked"
SCOREBOARD = f"{PREFIX}:scoreboard"  # generation 0; see ``scoreboard``
SCOREBOARD_MATCHES = f"{PREFIX}:scoreboard:matches"  # generation 0; see ``scoreboard_matches``


class InvalidLobbyStatusError(ValueError):
    """A lobby status other than waiting, playing or finished."""


class InvalidGenerationError(ValueError):
    """A read-model generation that is not a non-negative int."""


def validate_generation(generation: int) -> int:
    """Return ``generation`` unchanged if it is an int >= 0, else raise."""
    if isinstance(generation, bool) or not isinstance(generation, int) or generation < 0:
        raise InvalidGenerationError(f"invalid read-model generation: {generation!r}")
    return generation


def _generation_suffix(generation: int) -> str:
    return f":g{generation}" if validate_generation(generation) else ""


def _lobby_status(status: str) -> str:
    if status not in LOBBY_STATUSES:
        raise InvalidLobbyStatusError(f"invalid lobby status: {status!r}")
    return status


def match_views(match_id: str, generation: int = 0) -> str:
    """The match's read models (a hash: version, A, B, spectator, summary)."""
    return _match_key(match_id, "views") + _generation_suffix(generation)


def lobby(status: str, generation: int = 0) -> str:
    """The matches of one status (a sorted set: match id scored by creation time in ms)."""
    return f"{PREFIX}:lobby:{_lobby_status(status)}" + _generation_suffix(generation)


def scoreboard(generation: int = 0) -> str:
    """The ranking of every player (a sorted set, see shared/readmodels/scoreboard.py)."""
    return SCOREBOARD + _generation_suffix(generation)


def scoreboard_matches(generation: int = 0) -> str:
    """The finished matches the scoreboard counted (a set: its size is the board's version)."""
    return SCOREBOARD_MATCHES + _generation_suffix(generation)


def player_results(player_id: str, generation: int = 0) -> str:
    """What each finished match added to the player's totals (a hash: match id -> JSON)."""
    return _player_key(player_id, "results") + _generation_suffix(generation)


def player_totals(player_id: str, generation: int = 0) -> str:
    """The player's scoreboard row (a hash: name, matches_played, matches_won, ...)."""
    return _player_key(player_id, "totals") + _generation_suffix(generation)


def player_matches(player_id: str, status: str, generation: int = 0) -> str:
    """The player's matches of one status (a sorted set like the lobby's, in the player's slot)."""
    return _player_key(player_id, f"matches:{_lobby_status(status)}") + _generation_suffix(generation)


def player_matches_pattern(status: str, generation: int) -> str:
    """SCAN MATCH pattern of every player's matches of ``status`` in ``generation``."""
    return f"{PREFIX}:{{p:*}}:matches:{status}" + _generation_suffix(generation)


def generation_global_keys(generation: int) -> list[str]:
    """The generation's keys outside any match or player slot (lobby and ranking indexes)."""
    return [*(lobby(status, generation) for status in LOBBY_STATUSES),
            scoreboard(generation), scoreboard_matches(generation)]


def match_views_pattern(generation: int) -> str:
    """SCAN MATCH pattern of every match's views in ``generation`` (exactly that one)."""
    return f"{PREFIX}:{{m:*}}:views" + _generation_suffix(generation)


def player_totals_pattern(generation: int) -> str:
    """SCAN MATCH pattern of every player's totals in ``generation`` (exactly that one)."""
    return f"{PREFIX}:{{p:*}}:totals" + _generation_suffix(generation)


def player_results_pattern(generation: int) -> str:
    """SCAN MATCH pattern of every player's results in ``generation`` (exactly that one)."""
    return f"{PREFIX}:{{p:*}}:results" + _generation_suffix(generation)


def player_id_from_key(key: str | bytes) -> str:
    """Recover the player id from any per-player key (e.g. a SCAN result)."""
    return _id_from_key(key, "p")


# --- Catch-up lanes (on the queue's Redis, beside RQ's keys; see services/projector/lanes.py)


def lane_pending(queue_name: str, lane: int) -> str:
    """The ids of matches waiting for the lane's drain job (a set)."""
    return f"{PREFIX}:{{lanes:{queue_name}}}:{int(lane)}:pending"


def lane_armed(queue_name: str, lane: int) -> str:
    """Set while the lane has a drain job queued or running, so appends queue no other."""
    return f"{PREFIX}:{{lanes:{queue_name}}}:{int(lane)}:armed"


def lane_wake(queue_name: str, lane: int) -> str:
    """A one-item list a request pushes while the lane is armed: wakes a drain waiting on it."""
    return f"{PREFIX}:{{lanes:{queue_name}}}:{int(lane)}:wake"
