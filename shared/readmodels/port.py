"""The read-model store's port: what the projector writes and the API reads.

:class:`ReadSide` is the whole of it: every generation (each a :class:`ReadModelStore`: views,
lobby, scoreboard), the generation pointer, the players' feeds, the clocks' index and the
parked registry. Two adapters pass one contract suite
(``tests/contract/test_read_model_store_contract.py``): on Redis (a server, a cluster,
fakeredis) :class:`~shared.readmodels.served.ReadModels` and
:class:`~shared.readmodels.writes.GenerationModels`; in memory
:class:`~shared.readmodels.memory_served.InMemoryReadModels` and
:class:`~shared.readmodels.memory.InMemoryGenerationModels`. What differs between them (a
Lua script on one node, a pipeline split per node on a cluster, whether the pointer's read
can ride in the events' round trip) is the adapter's business.

The contract: views never move backwards (a rebuild may rewrite the same version, never an
older one); a match is listed under one status only, and a stale listing is moved as it is
met; private matches stay listed but the lobby hides them; a listed match with no stored
summary is shown with the line the read side's ``archived_summary`` gives (an archived
match's), and skipped when it gives none; each finished match counts once
per player, rows ranked by matches won, then points difference, then name. A notice told
is read back from its player's feed, in order; a clock indexed is due once its deadline
passes; a match parked stays parked until removed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from shared.eventstore.marks import MarkedEventStore
from shared.eventstore.port import EventStore
from shared.fold import FoldedMatch, Reach
from shared.readmodels.generations import Pointer
from shared.readmodels.parked import ParkedMatch, Poison, ServedVersions
from shared.readmodels.player_feeds import Notice, Telling
from shared.readmodels.ratings_port import RatingsStore
from shared.readmodels.read_along import ReadAlong


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

    def retire_archived(self, match_id: str, created_at_ms: int, player_ids: Sequence[str]) -> None: ...

    def lobby(self, status: str, limit: int = 50, after: str | None = None) -> list[dict[str, Any]]: ...

    def player_matches(self, player_id: str, status: str, limit: int = 50,
                       hide: bool = False, after: str | None = None) -> list[dict[str, Any]]: ...

    def listed_since(self, status: str, cutoff_ms: int, limit: int = 100) -> list[str]: ...

    def record_result(self, match_id: str, player_id: str, name: str, won: bool,
                      rounds_won: int, points_for: int, points_against: int, created_at: int) -> bool: ...

    def scoreboard(self, limit: int = 50) -> dict[str, Any]: ...

    def player_row(self, player_id: str) -> dict[str, Any] | None: ...


@runtime_checkable
class ParkedRegistry(Protocol):
    """The matches the projector stopped on (see :mod:`shared.readmodels.parked`)."""

    def park(self, match_id: str, poison: Poison, stream_version: int) -> ParkedMatch: ...

    def get(self, match_id: str) -> ParkedMatch | None: ...

    def all(self) -> dict[str, ParkedMatch]: ...

    def remove(self, match_id: str) -> bool: ...

    def current(self, readmodels: ServedVersions) -> list[ParkedMatch]: ...

    def forget_passed(self, readmodels: ServedVersions) -> list[str]: ...


@runtime_checkable
class ClockIndex(Protocol):
    """The running clocks: which matches are due when (see :mod:`shared.readmodels.clocks`)."""

    def set(self, match_id: str, deadline_ms: int | None) -> None: ...

    def due(self, now_ms: int, limit: int = 100) -> list[str]: ...

    def next_deadline(self) -> int | None: ...

    def running(self) -> int: ...


@runtime_checkable
class FeedReader(Protocol):
    """The players' feeds, as read (see :mod:`shared.readmodels.player_feeds`)."""

    def position(self, player_id: str) -> str: ...

    def resumes(self, player_id: str, after: str) -> bool: ...

    def after(self, player_id: str, after: str) -> list[Notice]: ...


@runtime_checkable
class ReadSide(Protocol):
    """Every generation of the read models and what goes with the served one: the pointer, the
    players' feeds, the clocks' index and the parked registry. What the projector writes and
    the API reads; a write's ``generation`` None is the generation reads use, resolved then.
    """

    parked: ParkedRegistry
    clocks: ClockIndex
    feeds: FeedReader

    def generation(self) -> int: ...

    def pointer(self) -> Pointer: ...

    def at(self, generation: int) -> ReadModelStore: ...

    def ratings(self, generation: int | None = None) -> RatingsStore:
        """The ratings read model of ``generation`` (None: the one reads use; see ``ratings_port``)."""
        ...

    def fold_new(
        self, store: EventStore, start: FoldedMatch, page_size: int, passes: tuple[type[BaseException], ...] = (),
    ) -> tuple[Reach, ReadAlong | None]: ...

    # --- the served generation, as read ----------------------------------------

    def view_json(self, match_id: str, audience: str) -> bytes | None: ...

    def view(self, match_id: str, audience: str) -> dict[str, Any] | None: ...

    def summary(self, match_id: str) -> dict[str, Any] | None: ...

    def projected_version(self, match_id: str) -> int: ...

    def wait_for_version(self, match_id: str, min_version: int, timeout_s: float) -> int: ...

    def lobby(self, status: str, limit: int = 50, after: str | None = None) -> list[dict[str, Any]]: ...

    def player_matches(self, player_id: str, status: str, limit: int = 50,
                       hide: bool = False) -> list[dict[str, Any]]: ...

    def scoreboard(self, limit: int = 50) -> dict[str, Any]: ...

    def player_row(self, player_id: str) -> dict[str, Any] | None: ...

    def lag(self, store: MarkedEventStore) -> int:
        """Events appended but not yet projected (over the matches marked unprojected)."""
        ...

    # --- writes -----------------------------------------------------------------

    def write_match(
        self, match_id: str, version: int, views: Mapping[str, Mapping[str, Any]],
        summary: Mapping[str, Any], *, replace_same_version: bool = False,
        generation: int | None = None, clear_mark: bool = True,
    ) -> bool: ...

    def place_in_lobby(
        self, match_id: str, status: str, created_at_ms: int, player_ids: Sequence[str] = (), *,
        generation: int | None = None, read_status: bool = False,
    ) -> str | None: ...

    def settle_lobby(
        self, match_id: str, created_at_ms: int, *, generation: int | None = None,
        written: Mapping[str, Any] | None = None,
    ) -> None: ...

    def record_result(
        self, match_id: str, player_id: str, name: str, won: bool,
        rounds_won: int, points_for: int, points_against: int, created_at: int, *,
        generation: int | None = None,
    ) -> bool: ...

    def retire_archived(self, match_id: str, created_at_ms: int, player_ids: Sequence[str], *,
                        generation: int | None = None) -> None:
        """An archived match counted and listed: its places and guards made compact (shared.readmodels.retiring)."""
        ...

    def names(self, player_ids: Sequence[str]) -> dict[str, str]:
        """The player directory's names of ``player_ids`` (``shared.directory``; unknown ids left out)."""
        ...

    def tell(self, match_id: str, deadline_ms: int | None, notices: Sequence[Telling],
             finished_at: int | None = None) -> None:
        """After a served write: index the match's clock (None: none runs) and append the
        players' notices, then wake their streams (the feeds' and the clock's writes: one round trip);
        ``finished_at``: the match ended then, and waits for the archive."""
        ...
