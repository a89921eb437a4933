"""Every Redis key of the project is built here, and nowhere else: ``truc:{<tag>}:<what>``.

- ``truc:`` namespaces the project: it can share a Redis, and ``SCAN MATCH truc:*`` sees no foreign key.
- ``{m:<match_id>}`` is a Redis Cluster *hash tag*: every key of one match lives in one slot, so a
  script or MULTI on one match runs unchanged on a cluster. None touches two matches at once.

Ids come from outside (URLs, job arguments), so they are validated (by the rule of shared/ids.py,
re-exported here): an id may never smuggle ``{``, ``}`` or ``:`` into a key and change its slot or shape.
"""
from __future__ import annotations

import re

from redis.crc import key_slot

from shared.cluster_slots import SLOTS, slot_tag
from shared.ids import ID_PATTERN, InvalidMatchIdError, validate_match_id  # noqa: F401 (keys' own alphabet)

PREFIX = "truc"


def _match_key(match_id: str, what: str) -> str:
    return f"{PREFIX}:{{m:{validate_match_id(match_id)}}}:{what}"


def _player_key(player_id: str, what: str) -> str:  # player ids obey the match ids' alphabet
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


# The marked matches, countable without a scan: one set, or one per slot (tagged) on a cluster.
UNPROJECTED_INDEX = f"{PREFIX}:unprojected"


def unprojected_index(match_id: str, per_slot: bool) -> str:
    """The set that lists ``match_id`` while it carries its mark (``per_slot``: on a cluster)."""
    slot = key_slot(f"m:{validate_match_id(match_id)}".encode())
    return f"{PREFIX}:{{{slot_tag(slot)}}}:unprojected" if per_slot else UNPROJECTED_INDEX


def unprojected_indexes(per_slot: bool) -> list[str]:
    """Every set :func:`unprojected_index` may name."""
    return [f"{PREFIX}:{{{slot_tag(slot)}}}:unprojected" for slot in range(SLOTS)] if per_slot else [UNPROJECTED_INDEX]


def match_tokens(match_id: str) -> str:
    """The match's append tokens (a hash: token key -> "first last fingerprint")."""
    return _match_key(match_id, "tokens")


def match_refusals(match_id: str) -> str:
    """The match's remembered refused requests (a hash like the tokens', capped, expiring)."""
    return _match_key(match_id, "refusals")


def match_catch_up(match_id: str) -> str:
    """Set by the append that asks a catch-up, cleared by any read of the stream: appends meanwhile ask none."""
    return _match_key(match_id, "catchup")


def match_seed(match_id: str) -> str:
    """The secret seed behind the match's shuffled deals (outside the stream until revealed)."""
    return _match_key(match_id, "seed")


def player(player_id: str) -> str:
    """A registered player (a hash: id, name); shares its hash tag with the player's scoreboard keys."""
    return _player_key(player_id, "player")


def player_name(name: str, looks: bool = False) -> str:
    """Claims a name (value: the player id) by its comparison form, or (``looks``) by its look-alike form."""
    return f"{PREFIX}:looks:{name}" if looks else f"{PREFIX}:name:{name.casefold()}"


def player_token(token_hash: str) -> str:
    """Maps the SHA-256 of a bearer token to its player id (the token itself is never stored)."""
    return f"{PREFIX}:token:{token_hash}"


def stream_ticket(ticket_hash: str) -> str:
    """Maps the SHA-256 of a stream ticket to its player id, until it expires or is used (one key: one slot)."""
    return f"{PREFIX}:ticket:{ticket_hash}"


TOKENS_REVOKED = f"{PREFIX}:tokens-revoked"  # a pub/sub channel: the hash of each token revoked (shared/revocations.py)


def limit(name: str, subject: str) -> str:
    """A client address's or player's units of an abuse limit (shared/limits.py); an IPv6 subject's colons end it."""
    if not re.fullmatch(r"[a-z_]{1,32}:[A-Za-z0-9_.:/-]{1,64}", f"{name}:{subject}"):
        raise ValueError(f"invalid limit key: {name!r}, {subject!r}")
    return f"{PREFIX}:limit:{name}:{subject}"


MATCH_EVENTS_PATTERN = f"{PREFIX}:{{m:*}}:events"
MATCH_UNPROJECTED_PATTERN = f"{PREFIX}:{{m:*}}:unprojected"
NAME_CLAIMS_PATTERN, LOOKALIKES_CLAIMED = f"{PREFIX}:name:*", f"{PREFIX}:looks"  # the second: claims made of skeleton N


def match_id_from_key(key: str | bytes) -> str:
    """Recover the match id from any per-match key (e.g. a SCAN result)."""
    return _id_from_key(key, "m")


# --- Read models (written by the projector, read by the API) -------------------------
# A match's views live in its slot, beside its stream and mark (one script writes the views and
# clears the mark); a player's scoreboard keys share the player's tag; the lobby and ranking indexes
# are global, written by single commands. Every read-model key belongs to a generation
# (shared/readmodels/generations.py): N >= 1 appends ``:g<N>``, 0 keeps the plain names.

LOBBY_STATUSES = ("waiting", "playing", "finished", "cancelled")
READ_MODELS = f"{PREFIX}:readmodels"
VIEWS_CHANGED = f"{PREFIX}:views-changed"  # a pub/sub channel: the match id of every views write
MATCHES_APPENDED, PLAYERS_TOLD = f"{PREFIX}:appended", f"{PREFIX}:told"  # pub/sub: appends, notices told
PARKED, CLOCKS = f"{PREFIX}:parked", f"{PREFIX}:clocks"  # no generation: shared/readmodels/{parked,clocks}.py
SCOREBOARD = f"{PREFIX}:scoreboard"  # generation 0; see ``scoreboard``
SCOREBOARD_MATCHES = f"{PREFIX}:scoreboard:matches"  # generation 0; see ``scoreboard_matches``


class InvalidLobbyStatusError(ValueError):
    """A lobby status other than waiting, playing, finished or cancelled."""


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


def player_feed(player_id: str) -> str:
    """The player's notices (a capped stream, no generation: see shared/readmodels/player_feeds.py)."""
    return _player_key(player_id, "feed")


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
    return [*(lobby(s, generation) for s in LOBBY_STATUSES), scoreboard(generation), scoreboard_matches(generation)]


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


# --- Catch-up lanes (on the queue's Redis, beside RQ's keys; see shared/catchup.py)
def lane_pending(queue_name: str, lane: int) -> str:
    """The ids of matches waiting for the lane's drain job (a set)."""
    return f"{PREFIX}:{{lanes:{queue_name}}}:{int(lane)}:pending"


def lane_armed(queue_name: str, lane: int) -> str:
    """Set while the lane has a drain job queued or running, so appends queue no other."""
    return f"{PREFIX}:{{lanes:{queue_name}}}:{int(lane)}:armed"


def lane_wake(queue_name: str, lane: int) -> str:
    """A one-item list a request pushes while the lane is armed: wakes a drain waiting on it."""
    return f"{PREFIX}:{{lanes:{queue_name}}}:{int(lane)}:wake"
