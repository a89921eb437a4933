"""The ratings read model's keys (shared/readmodels/ratings.py), each by read-model generation.

The ordered results, the results not yet folded, the chills waiting and the fold's lock share
one hash tag (``{ratings}``): one script releases the lock only when nothing waits. A player's
rating history, hot and cold, lives in the player's slot; the leaderboard is global.
"""
from __future__ import annotations

from shared.keys.namespace import PREFIX, player_key
from shared.keys.read_models import validate_generation

_TAG = f"{PREFIX}:{{ratings}}"


def _suffix(generation: int) -> str:
    return f":g{generation}" if validate_generation(generation) else ""


def rated_results(generation: int = 0) -> str:
    """Every rated result (a sorted set: a compact result scored by the match's end, ms)."""
    return f"{_TAG}:results" + _suffix(generation)


def ratings_pending(generation: int = 0) -> str:
    """The rated results recorded but not yet folded (the same members as ``rated_results``)."""
    return f"{_TAG}:pending" + _suffix(generation)


def ratings_lock(generation: int = 0) -> str:
    """Who folds the ratings now (a string: the folder's token, with an expiry)."""
    return f"{_TAG}:lock" + _suffix(generation)


def ratings_fences(generation: int = 0) -> str:
    """The fold's fencing counter (a string: incremented by each folder that takes the lock)."""
    return f"{_TAG}:fences" + _suffix(generation)


def leaderboard_fence(generation: int = 0) -> str:
    """The highest fence that wrote the leaderboard; its hash tag is the board's whole name, so it
    shares the board's slot and one script checks and writes both."""
    return f"{{{leaderboard(generation)}}}:fence"


def player_ratings_fence(player_id: str, generation: int = 0) -> str:
    """The highest fence that wrote the player's rating history (a string, in the player's slot)."""
    return player_key(player_id, "ratings-fence") + _suffix(generation)


def player_ratings_fence_pattern(generation: int) -> str:
    """SCAN MATCH pattern of every player's rating fence in ``generation`` (exactly that one)."""
    return f"{PREFIX}:{{p:*}}:ratings-fence" + _suffix(generation)


def leaderboard(generation: int = 0) -> str:
    """The non-provisional players by rating (a sorted set: player id scored by rating)."""
    return f"{PREFIX}:leaderboard" + _suffix(generation)


def player_ratings(player_id: str, generation: int = 0) -> str:
    """The player's rating history (a sorted set: one compact entry per rated match, scored by its end)."""
    return player_key(player_id, "ratings") + _suffix(generation)


def player_ratings_cold(player_id: str, generation: int = 0) -> str:
    """The oldest part of the player's rating history, compact (a string: the standing after it, then
    fixed-width records; see :mod:`shared.readmodels.rating_cold`)."""
    return player_key(player_id, "ratings-cold") + _suffix(generation)


def player_ratings_cold_pattern(generation: int) -> str:
    """SCAN MATCH pattern of every player's cold rating history in ``generation`` (exactly that one)."""
    return f"{PREFIX}:{{p:*}}:ratings-cold" + _suffix(generation)


def ratings_chills(generation: int = 0) -> str:
    """The archived rated matches whose players' entries wait to be made compact (a sorted set:
    ``<match> <player> <player>`` scored by the match's end, ms), done by the folder."""
    return f"{_TAG}:chills" + _suffix(generation)


def player_ratings_pattern(generation: int) -> str:
    """SCAN MATCH pattern of every player's rating history in ``generation`` (exactly that one)."""
    return f"{PREFIX}:{{p:*}}:ratings" + _suffix(generation)


def ratings_global_keys(generation: int) -> list[str]:
    """The generation's ratings keys outside any player slot."""
    return [rated_results(generation), ratings_pending(generation), ratings_lock(generation), leaderboard(generation),
            ratings_fences(generation), leaderboard_fence(generation), ratings_chills(generation)]
