"""The read side in memory: every generation, the pointer, the players' feeds, the clocks'
index and the parked registry, in this process (the in-memory adapter of
:class:`~shared.readmodels.port.ReadSide`; ``memory`` holds one generation, as ``writes`` does on Redis).

For tests and tools that need no Redis; it passes the same contract suite as
:class:`~shared.readmodels.served.ReadModels`. On Redis the views' script clears the event
store's "unprojected" mark in the write that projects it (they share a node); here the
event store's marks are given (``marks``) and cleared just after the write.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from shared import keys
from shared.eventstore.marks import MarkedEventStore, ProjectionMarks
from shared.eventstore.port import EventStore
from shared.fold import FoldedMatch, Reach, fold_to_refusal
from shared.identity import validate_player_id
from shared.readmodels.generation_writes import GenerationWrites
from shared.readmodels.generations import Pointer
from shared.readmodels.lobby_lists import ArchivedSummary, no_archive
from shared.readmodels.memory import InMemoryGenerationModels
from shared.readmodels.memory_ratings import InMemoryRatings
from shared.readmodels.parked import ParkedMatch, ParkedRecords, Poison, parked_record
from shared.readmodels.player_feeds import MAXLEN, START, Notice, Telling, entry_order
from shared.readmodels.read_along import ReadAlong


class InMemoryReadModels(GenerationWrites):
    """The read models of every generation, and what goes with the served one, in this process
    (``archived_summary``: the lists' line of a match that left for the archive, as on Redis)."""

    def __init__(self, marks: ProjectionMarks | None = None, archived_summary: ArchivedSummary = no_archive) -> None:
        self._marks = marks
        self._archived_summary = archived_summary
        self._pointer = Pointer()
        self._generations: dict[int, InMemoryGenerationModels] = {}
        self._ratings: dict[int, InMemoryRatings] = {}
        self._written = threading.Condition()
        self.parked = InMemoryParkedMatches()
        self.clocks = InMemoryClocks()
        self.feeds = InMemoryFeeds()
        self.directory: dict[str, str] = {}  # player id -> name, the player directory of this process

    def generation(self) -> int:
        return self._pointer.generation

    def pointer(self) -> Pointer:
        return self._pointer

    def at(self, generation: int) -> InMemoryGenerationModels:
        with self._written:
            if generation not in self._generations:
                self._generations[generation] = InMemoryGenerationModels(generation, self._archived_summary)
            return self._generations[generation]

    def ratings(self, generation: int | None = None) -> InMemoryRatings:
        """The ratings read model of ``generation`` (None: the one reads use)."""
        generation = self._pointer.generation if generation is None else generation
        with self._written:
            return self._ratings.setdefault(generation, InMemoryRatings())

    def build(self, generation: int | None) -> None:
        """Start (None: stop) building ``generation`` beside the served one (a rebuild's lock, on Redis)."""
        self._pointer = replace(self._pointer, building=generation)

    def switch_to(self, generation: int) -> None:
        """Serve ``generation`` from now on (a rebuild's switch)."""
        self._pointer = Pointer(generation)
        with self._written:
            self._written.notify_all()

    def fold_new(
        self, store: EventStore, start: FoldedMatch, page_size: int, passes: tuple[type[BaseException], ...] = (),
    ) -> tuple[Reach, ReadAlong | None]:
        """The events after ``start`` folded up to any refused; the pointer and names are the writer's
        to read (None)."""
        return fold_to_refusal(store, start, page_size, passes=passes), None

    # --- the served generation, as read ------------------------------------------

    def view_json(self, match_id: str, audience: str) -> bytes | None:
        return self._served().view_json(match_id, audience)

    def view(self, match_id: str, audience: str) -> dict[str, Any] | None:
        return self._served().view(match_id, audience)

    def summary(self, match_id: str) -> dict[str, Any] | None:
        return self._served().summary(match_id)

    def projected_version(self, match_id: str) -> int:
        return self._served().projected_version(match_id)

    def wait_for_version(self, match_id: str, min_version: int, timeout_s: float) -> int:
        """Until the served views reach ``min_version`` or ``timeout_s`` passes; the version reached."""
        keys.validate_match_id(match_id)
        deadline = time.monotonic() + max(timeout_s, 0.0)
        with self._written:
            while (version := self.projected_version(match_id)) < min_version:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._written.wait(left)
        return version

    def lobby(self, status: str, limit: int = 50, after: str | None = None) -> list[dict[str, Any]]:
        return self._served().lobby(status, limit, after)

    def player_matches(self, player_id: str, status: str, limit: int = 50, hide: bool = False,
                       after: str | None = None) -> list[dict[str, Any]]:
        return self._served().player_matches(player_id, status, limit, hide, after)

    def scoreboard(self, limit: int = 50) -> dict[str, Any]:
        return self._served().scoreboard(limit)

    def player_row(self, player_id: str) -> dict[str, Any] | None:
        return self._served().player_row(player_id)

    def lag(self, store: MarkedEventStore) -> int:
        """Events appended but not yet projected, over the marked matches."""
        marked = list(store.unprojected_listed())
        return sum(max(0, store.version(match_id) - projected)
                   for match_id, projected in zip(marked, self._served().projected_versions(marked)))

    # --- writes (``generation`` None: the one reads use) -------------------------

    def write_match(
        self, match_id: str, version: int, views: Mapping[str, Mapping[str, Any]],
        summary: Mapping[str, Any], *, replace_same_version: bool = False,
        generation: int | None = None, clear_mark: bool = True,
    ) -> bool:
        """Store the views of ``version`` if newer; with ``clear_mark``, the events up to it are projected."""
        wrote = self._target(generation).write_match(match_id, version, views, summary,
                                                     replace_same_version=replace_same_version)
        if clear_mark and self._marks is not None:
            self._marks.mark_projected(match_id, version)
        with self._written:
            self._written.notify_all()
        return wrote

    def names(self, player_ids: Sequence[str]) -> dict[str, str]:
        """The names ``directory`` holds of ``player_ids`` (tests fill it as registration would)."""
        return {player_id: self.directory[player_id] for player_id in player_ids if player_id in self.directory}

    def tell(self, match_id: str, deadline_ms: int | None, notices: Sequence[Telling],
             finished_at: int | None = None) -> None:
        """The clock's index and the players' notices after a served write (no archive here: an
        ended match waits for none)."""
        self.feeds.append(notices)
        self.clocks.set(match_id, deadline_ms)

    def _served(self) -> InMemoryGenerationModels:
        return self.at(self.generation())

    def _target(self, generation: int | None) -> InMemoryGenerationModels:
        return self.at(self.generation() if generation is None else generation)


class InMemoryParkedMatches(ParkedRecords):
    """The registry of parked matches, in a dict."""

    def __init__(self) -> None:
        self._records: dict[str, ParkedMatch] = {}

    def park(self, match_id: str, poison: Poison, stream_version: int) -> ParkedMatch:
        self._records[match_id] = record = parked_record(keys.validate_match_id(match_id), poison, stream_version)
        return record

    def get(self, match_id: str) -> ParkedMatch | None:
        return self._records.get(match_id)

    def all(self) -> dict[str, ParkedMatch]:
        return dict(self._records)

    def remove(self, match_id: str) -> bool:
        return self._records.pop(match_id, None) is not None


class InMemoryClocks:
    """The running clocks, in a dict: match id -> deadline (epoch ms)."""

    def __init__(self) -> None:
        self._deadlines: dict[str, int] = {}

    def set(self, match_id: str, deadline_ms: int | None) -> None:
        keys.validate_match_id(match_id)
        if deadline_ms is None:
            self._deadlines.pop(match_id, None)
        else:
            self._deadlines[match_id] = deadline_ms

    def due(self, now_ms: int, limit: int = 100) -> list[str]:
        """Matches whose deadline has passed, the most overdue first (ties: by id, as Redis's sorted set)."""
        overdue = sorted((deadline, match_id) for match_id, deadline in self._deadlines.items() if deadline <= now_ms)
        return [match_id for _, match_id in overdue[:max(limit, 0)]]

    def next_deadline(self) -> int | None:
        return min(self._deadlines.values(), default=None)

    def running(self) -> int:
        return len(self._deadlines)


class InMemoryFeeds:
    """The players' feeds, in lists (entry ids ``0-<n>``, increasing; about ``MAXLEN`` kept)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._feeds: dict[str, list[Notice]] = {}
        self._last = 0

    def append(self, notices: Sequence[Telling]) -> None:
        with self._lock:
            for player_id, kind, data in notices:
                self._last += 1
                feed = self._feeds.setdefault(validate_player_id(player_id), [])
                feed.append(Notice(f"0-{self._last}", kind, dict(data)))
                del feed[:-MAXLEN]

    def position(self, player_id: str) -> str:
        feed = self._feeds.get(player_id)
        return feed[-1].id if feed else START

    def resumes(self, player_id: str, after: str) -> bool:
        feed = self._feeds.get(player_id)
        if not feed:
            return after == START
        return entry_order(feed[0].id) <= entry_order(after) <= entry_order(feed[-1].id)

    def after(self, player_id: str, after: str) -> list[Notice]:
        return [notice for notice in self._feeds.get(player_id, ()) if entry_order(notice.id) > entry_order(after)]
