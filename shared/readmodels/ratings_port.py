"""The ratings read model's port: rated results in, ratings, histories and the leaderboard out.

Two adapters pass one contract suite (``tests/contract/test_ratings_contract.py``): on Redis
:class:`~shared.readmodels.rating_store.RedisRatings`, in memory
:class:`~shared.readmodels.memory_ratings.InMemoryRatings`. The contract: a result is recorded
once however often it is told; once settled, the ratings served are always the fold of every result recorded
in the order of :mod:`shared.ratings.rating_fold` (end time, then match id), whichever order
they were recorded in and however many folders ran at once; a player's history is one entry
per rated match, oldest first; the leaderboard holds the non-provisional players by rating.
A chill (an archived match) changes none of that but the precision of its older entries.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from shared.ratings.rating_fold import Change, PlayerRating, RatedResult


@runtime_checkable
class RatingsStore(Protocol):
    """One generation of the ratings read model."""

    def record(self, result: RatedResult, fold: bool = True) -> bool:
        """Add a rated result (True if it was new) and, with ``fold``, fold what waits (see
        ``settle``); a generation being built folds once, at the end of its rebuild."""
        ...

    def chill(self, match_id: str, ended_at: int, player_ids: list[str], fold: bool = True) -> None:
        """The match left Redis for the archive: its players' entries up to it (its end, then its id)
        may be kept compact from now on, their ratings and RDs then read to within 0.001 and their
        volatilities not at all (NaN); with ``fold``, at once (after what waits), else at the next
        settle. Results, ratings and the leaderboard stay exact."""
        ...

    def settle(self) -> int:
        """Fold every result recorded and not yet folded, from the earliest one's place on;
        the number of results (re)folded. Returns 0 at once when another folder holds the
        fold: it folds what waits before it lets go."""
        ...

    def rating(self, player_id: str) -> PlayerRating | None:
        """The player's rating as of their last rated match; None before their first."""
        ...

    def history(self, player_id: str, after: int = 0, limit: int = 50) -> list[Change]:
        """The player's rating changes, oldest first, skipping the first ``after``."""
        ...

    def leaderboard(self, after: int = 0, limit: int = 50) -> list[tuple[str, PlayerRating]]:
        """Non-provisional players by rating (highest first), skipping the first ``after``."""
        ...

    def results(self) -> list[RatedResult]:
        """Every rated result recorded, in fold order."""
        ...

    def waiting(self) -> int:
        """How many results are recorded but not yet folded (the ratings' lag)."""
        ...
