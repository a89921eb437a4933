"""The read models' keys (written by the projector, read by the API): views, lobby, scoreboard, feeds.

A match's views live in its slot, beside its stream and mark (one script writes the views and
clears the mark); a player's scoreboard keys share the player's tag; the lobby and ranking indexes
are global, written by single commands. Every read-model key belongs to a generation
(shared/readmodels/generations.py): N >= 1 appends ``:g<N>``, 0 keeps the plain names.
"""
from __future__ import annotations

from shared.keys.namespace import PREFIX, match_key, player_key

LOBBY_STATUSES = ("waiting", "playing", "finished", "cancelled")
READ_MODELS = f"{PREFIX}:readmodels"
VIEWS_CHANGED = f"{PREFIX}:views-changed"  # a pub/sub channel: the match id of every views write
PLAYERS_TOLD = f"{PREFIX}:told"  # a pub/sub channel: the player id of every notice told
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
    return match_key(match_id, "views") + _generation_suffix(generation)


def lobby(status: str, generation: int = 0) -> str:
    """The matches of one status (a sorted set: match id scored by creation time in ms)."""
    return f"{PREFIX}:lobby:{_lobby_status(status)}" + _generation_suffix(generation)


def scoreboard(generation: int = 0) -> str:
    """The ranking of every player (a sorted set, see shared/readmodels/scoreboard.py)."""
    return SCOREBOARD + _generation_suffix(generation)


def scoreboard_matches(generation: int = 0) -> str:
    """The finished matches the scoreboard counted (a set: its size is the board's version)."""
    return SCOREBOARD_MATCHES + _generation_suffix(generation)


def scoreboard_archived(generation: int = 0) -> str:
    """How many counted matches left ``scoreboard_matches`` when archived (a counter, in that set's slot)."""
    return f"{_slot_of(scoreboard_matches(generation))}:archived"


def player_feed(player_id: str) -> str:
    """The player's notices (a capped stream, no generation: see shared/readmodels/player_feeds.py)."""
    return player_key(player_id, "feed")


def player_results(player_id: str, generation: int = 0) -> str:
    """What each finished match added to the player's totals (a hash: match id -> JSON)."""
    return player_key(player_id, "results") + _generation_suffix(generation)


def player_totals(player_id: str, generation: int = 0) -> str:
    """The player's scoreboard row (a hash: name, matches_played, matches_won, ...)."""
    return player_key(player_id, "totals") + _generation_suffix(generation)


def player_matches(player_id: str, status: str, generation: int = 0) -> str:
    """The player's matches of one status (a sorted set like the lobby's, in the player's slot)."""
    return player_key(player_id, f"matches:{_lobby_status(status)}") + _generation_suffix(generation)


def cold_list(list_key: str, day: int, width: int) -> str:
    """A list's cold records of one creation day and id length (a string of fixed-width records), in its slot."""
    return f"{_slot_of(list_key)}:cold:{day}:{width}"


def cold_list_days(list_key: str) -> str:
    """The days a list has cold records of (a sorted set: ``<day>:<width>`` scored by day), in its slot."""
    return f"{_slot_of(list_key)}:cold"


def _slot_of(list_key: str) -> str:
    """A prefix that hashes to the list's own slot: its tag, or (a key with none) its whole name as the tag."""
    return list_key if "{" in list_key else f"{PREFIX}:{{{list_key}}}"


def player_matches_pattern(status: str, generation: int) -> str:
    """SCAN MATCH pattern of every player's matches of ``status`` in ``generation``."""
    return f"{PREFIX}:{{p:*}}:matches:{status}" + _generation_suffix(generation)


def generation_global_keys(generation: int) -> list[str]:
    """The generation's keys outside any match or player slot (lobby and ranking indexes)."""
    return [*(lobby(s, generation) for s in LOBBY_STATUSES), scoreboard(generation), scoreboard_matches(generation),
            scoreboard_archived(generation)]


def match_views_pattern(generation: int) -> str:
    """SCAN MATCH pattern of every match's views in ``generation`` (exactly that one)."""
    return f"{PREFIX}:{{m:*}}:views" + _generation_suffix(generation)


def player_totals_pattern(generation: int) -> str:
    """SCAN MATCH pattern of every player's totals in ``generation`` (exactly that one)."""
    return f"{PREFIX}:{{p:*}}:totals" + _generation_suffix(generation)


def player_results_pattern(generation: int) -> str:
    """SCAN MATCH pattern of every player's results in ``generation`` (exactly that one)."""
    return f"{PREFIX}:{{p:*}}:results" + _generation_suffix(generation)
