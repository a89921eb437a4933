"""What both read-side adapters do alike: a write names its generation, or goes to the served one.

:class:`~shared.readmodels.served.ReadModels` (Redis) and
:class:`~shared.readmodels.memory_served.InMemoryReadModels` each say which generation's store
a write goes to (``_target``); the lobby's and the scoreboard's writes are then that store's.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from shared.readmodels.port import ReadModelStore


class GenerationWrites:
    """The lobby's and the scoreboard's writes of a read side, routed to one generation's store."""

    def _target(self, generation: int | None) -> ReadModelStore:
        raise NotImplementedError

    def place_in_lobby(
        self, match_id: str, status: str, created_at_ms: int, player_ids: Sequence[str] = (), *,
        generation: int | None = None, read_status: bool = False,
    ) -> str | None:
        """List the match under ``status`` only, in the lobby and its players' lists (idempotent);
        with ``read_status``, the status its stored summary holds (see ``GenerationModels``)."""
        return self._target(generation).place_in_lobby(match_id, status, created_at_ms, player_ids, read_status)

    def settle_lobby(
        self, match_id: str, created_at_ms: int, *, generation: int | None = None,
        written: Mapping[str, Any] | None = None,
    ) -> None:
        """List the match under the status of its stored summary (see ``GenerationModels``)."""
        self._target(generation).settle_lobby(match_id, created_at_ms, written)

    def record_result(
        self, match_id: str, player_id: str, name: str, won: bool,
        rounds_won: int, points_for: int, points_against: int, created_at: int, *,
        generation: int | None = None,
    ) -> bool:
        """Count one finished match for one player, exactly once; True if newly counted."""
        return self._target(generation).record_result(
            match_id, player_id, name, won, rounds_won, points_for, points_against, created_at,
        )

    def retire_archived(self, match_id: str, created_at_ms: int, player_ids: Sequence[str], *,
                        generation: int | None = None) -> None:
        """An archived match counted and listed: its places and guards made compact (idempotent)."""
        self._target(generation).retire_archived(match_id, created_at_ms, player_ids)
