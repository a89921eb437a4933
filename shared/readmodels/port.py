"""The read-model store's port: what the projector writes and the API reads, of one generation.

Two adapters pass one contract suite (``tests/contract/test_read_model_store_contract.py``):
:class:`~shared.readmodels.writes.GenerationModels` on Redis (a server, a cluster, fakeredis)
and :class:`~shared.readmodels.memory.InMemoryGenerationModels`. What differs between them (a
Lua script on one node, a pipeline split per node on a cluster) is the adapter's business.

The contract: views never move backwards (a rebuild may rewrite the same version, never an
older one); a match is listed under one status only, and a stale listing is moved as it is
met; private matches stay listed but the lobby hides them; each finished match counts once
per player, rows ranked by matches won, then points difference, then name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class ReadModelStore(Protocol):
    """One generation of the read models: match views, the lobby, the scoreboard."""

    generation: int

    def write_match(
        self, match_id: str, version: int, views: Mapping[str, Mapping[str, Any]],
        summary: Mapping[str, Any], *, replace_same_version: bool = False, clear_mark: bool = True,
    ) -> bool: ...

    def view_json(self, match_id: str, audience: str) -> bytes | None: ...

    def view(self, match_id: str, audience: str) -> dict[str, Any] | None: ...

    def summary(self, match_id: str) -> dict[str, Any] | None: ...

    def projected_version(self, match_id: str) -> int: ...

    def projected_versions(self, match_ids: list[str]) -> list[int]: ...

    def place_in_lobby(self, match_id: str, status: str, created_at_ms: int, player_ids: Sequence[str] = (),
                       read_status: bool = False) -> str | None: ...

    def settle_lobby(self, match_id: str, created_at_ms: int, written: Mapping[str, Any] | None = None) -> None: ...

    def lobby(self, status: str, limit: int = 50) -> list[dict[str, Any]]: ...

    def player_matches(self, player_id: str, status: str, limit: int = 50,
                       hide: bool = False) -> list[dict[str, Any]]: ...

    def record_result(self, match_id: str, player_id: str, name: str, won: bool,
                      rounds_won: int, points_for: int, points_against: int) -> bool: ...

    def scoreboard(self, limit: int = 50) -> dict[str, Any]: ...

    def player_row(self, player_id: str) -> dict[str, Any] | None: ...
