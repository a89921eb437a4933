"""The ratings read model in memory (tests and tools without Redis): the port's second adapter."""

from __future__ import annotations

import threading

from shared.ratings.rating_fold import NEW_PLAYER, Change, PlayerRating, RatedResult, refold


class InMemoryRatings:
    """One generation of the ratings, in this process; one lock stands for the fold's."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._results: dict[str, RatedResult] = {}  # match id -> result
        self._pending: set[tuple[int, str]] = set()
        self._history: dict[str, list[Change]] = {}  # player -> changes in fold order

    def record(self, result: RatedResult, fold: bool = True) -> bool:
        with self._lock:
            if result.match_id in self._results:
                return False
            self._results[result.match_id] = result
            self._pending.add(result.key)
        if fold:
            self.settle()
        return True

    def chill(self, match_id: str, ended_at: int, player_ids: list[str], fold: bool = True) -> None:
        """Nothing to make compact in memory: every entry stays exact."""

    def settle(self) -> int:
        with self._lock:
            if not self._pending:
                return 0
            first = min(self._pending)
            self._pending.clear()
            later = sorted((r for r in self._results.values() if r.key >= first), key=lambda r: r.key)
            standing = {}
            for result in later:
                for player in (result.player_a, result.player_b):
                    kept = [c for c in self._history.get(player, []) if (c.at, c.match_id) < first]
                    self._history[player] = kept
                    standing[player] = kept[-1].after if kept else NEW_PLAYER
            for change in refold(later, standing):
                self._history[change.player_id].append(change)
            return len(later)

    def rating(self, player_id: str) -> PlayerRating | None:
        changes = self._history.get(player_id)
        return changes[-1].after if changes else None

    def history(self, player_id: str, after: int = 0, limit: int = 50) -> list[Change]:
        return list(self._history.get(player_id, [])[after:after + max(limit, 0)])

    def leaderboard(self, after: int = 0, limit: int = 50) -> list[tuple[str, PlayerRating]]:
        rated = [(p, changes[-1].after) for p, changes in self._history.items() if changes]
        ranked = sorted(((p, r) for p, r in rated if not r.provisional), key=lambda pr: (-pr[1].rating.value, pr[0]))
        return ranked[after:after + max(limit, 0)]

    def results(self) -> list[RatedResult]:
        return sorted(self._results.values(), key=lambda r: r.key)

    def waiting(self) -> int:
        return len(self._pending)
