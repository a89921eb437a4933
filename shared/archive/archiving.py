"""Archiving one finished match: into the archive, read back and verified, then out of Redis.

The steps, each safe to die after (a rerun picks the match up where it stands):

1. read the whole stream and the seed; go on only if the match is finished (its last event
   ``match_won`` or ``match_cancelled``), ended ``after_ms`` ago or more, and projected;
2. ``put`` it to the archive (``written``);
3. ``get`` it back and compare it with what Redis holds: the same events (so the same count
   and chain head) and seed (``verified``); a copy that differs is a failure, and Redis keeps
   the match;
4. in one atomic script, write the index entry and delete every per-match key
   (:func:`~shared.archive.leaving.leave`, ``left``), move its places in the lobby's and its
   players' lists to their cold records (:func:`~shared.readmodels.retiring.chill_lists`), retire
   the scoreboard's guards the cold records now stand for
   (:func:`~shared.readmodels.retiring.retire_counts`), each idempotent, then drop it from the due
   list. A run that died before dropping it finds the index entry, finishes the lists and the
   guards (its players read from the archived copy), and drops it.

Nothing is deleted before step 3 has verified the copy, and step 4's script is atomic, so at any
point the match is whole in Redis, or whole in the archive with its index entry. ``stop``
is called with each step's name as it is passed (the fault-injection tests stop there).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from shared.archive import leaving
from shared.archive.due import DueMatches
from shared.archive.index import ArchiveIndex, IndexEntry
from shared.archive.opening import open_archive
from shared.archive.port import Archive, ArchivedMatch, ArchiveUnavailableError, DamagedArchiveError
from shared.archive.totals import ArchiveTotals
from shared.config import Config
from shared.connect import connect
from shared.directory import names_in
from shared.eventstore import RedisEventStore
from shared.eventstore.port import Clock, StoredEvent, system_clock
from shared.readmodels import retiring
from shared.readmodels.generations import Pointer, read_pointer
from shared.readmodels.rating_store import RedisRatings
from shared.seeds import SeedVault

FINAL_EVENTS = ("match_won", "match_cancelled")  # nothing is appended after either
STEPS = ("written", "verified", "left", "chilled")


def _no_stop(step: str) -> None:
    """Go on (tests stop a run at a step instead)."""


@dataclass(frozen=True)
class Outcome:
    """What became of one match: ``archived``, or why it was left in Redis (or was gone already)."""

    match_id: str
    result: str  # archived | already | missing | unfinished | too_recent | unprojected | changed | failed
    size: int = 0  # bytes in the archive, when archived
    reason: str | None = None  # a failure's reason (see shared.archive.totals.FAILURE_REASONS)


class Archiver:
    """Moves finished matches from a Redis to an archive (``after_ms``: how long after their end)."""

    def __init__(self, client: Any, archive: Archive, after_ms: int, clock: Clock = system_clock,
                 stop: Callable[[str], None] = _no_stop) -> None:
        self._client, self.archive, self.after_ms, self._clock, self._stop = client, archive, after_ms, clock, stop
        self.due_list, self.index, self.totals = DueMatches(client), ArchiveIndex(client), ArchiveTotals(client)
        self._store, self._seeds = RedisEventStore(client), SeedVault(client)

    @classmethod
    def from_config(cls, config: Config) -> Archiver:
        """An archiver over ``config``'s Redis and archive (the worker's jobs and ``truc archive`` alike)."""
        return cls(connect(config.redis_url), open_archive(config), config.archive_after * 1000)

    def archive_due(self, limit: int = 100) -> list[Outcome]:
        """Archive every match the due list says ended ``after_ms`` ago or more (at most ``limit``)."""
        return [self.archive_one(match_id) for match_id in self.due(limit)]

    def due(self, limit: int = 100) -> list[str]:
        """The matches due now, the longest finished first."""
        return self.due_list.due(self._clock() - self.after_ms, limit)

    def archive_one(self, match_id: str, force: bool = False) -> Outcome:
        """Archive the match if it is finished, projected and (unless ``force``) old enough."""
        if self.index.get(match_id) is not None:
            return self._left_before(match_id)
        events = tuple(self._store.read(match_id))
        refusal = self._refusal(events, force)
        if refusal is not None:
            return Outcome(match_id, refusal)
        match = ArchivedMatch(match_id, events, self._seeds.get(match_id), events[-1].at,
                              names_in(self._client, _players(events)))
        try:
            size = self._copy(match)
        except (ArchiveUnavailableError, DamagedArchiveError) as error:
            reason = "unreachable" if isinstance(error, ArchiveUnavailableError) else "verify"
            self.totals.failed(reason)
            return Outcome(match_id, "failed", reason=reason)
        return self._leave(match, size)

    def _left_before(self, match_id: str) -> Outcome:
        """A match archived before: finish what a run that died after leaving left undone."""
        if self.due_list.is_due(match_id):  # that run died before forgetting it: its lists may wait to be moved
            try:
                kept = self.archive.get(match_id)
            except (ArchiveUnavailableError, DamagedArchiveError):
                return Outcome(match_id, "already")  # still due: the next run moves them
            if kept is not None:
                self._retire(match_id, kept.events, read_pointer(self._client))
            self.due_list.forget(match_id)
        return Outcome(match_id, "already")

    def _retire(self, match_id: str, events: Sequence[StoredEvent], pointer: Pointer) -> None:
        """Move the left match's list places to cold records, then retire the guards they stand for;
        a rated one's rating entries too (the served generation's folder moves them at once, the
        one being built, if any, at the end of its rebuild)."""
        players = _players(events)
        retiring.retire(self._client, match_id, events[0].at, players, _generations(pointer),
                        chilled=lambda: self._stop("chilled"))
        if events[0].data.get("rated") and len(players) == 2:
            for generation in {pointer.generation, pointer.building} - {None}:  # no chill waits in a dropped one
                RedisRatings(self._client, generation).chill(match_id, events[-1].at, players,
                                                             fold=generation == pointer.generation)

    def _refusal(self, events: tuple[Any, ...], force: bool) -> str | None:
        """Why the match must stay in Redis for now; None if it may go."""
        if not events:
            return "missing"
        if events[-1].type not in FINAL_EVENTS:
            return "unfinished"
        if not force and self._clock() - events[-1].at < self.after_ms:
            return "too_recent"
        return None

    def _copy(self, match: ArchivedMatch) -> int:
        """Put the match to the archive and read it back; its size there. DamagedArchiveError if it differs."""
        receipt = self.archive.put(match)
        self._stop("written")
        kept = self.archive.get(match.match_id)
        if kept is None or kept.count != match.count or kept.head != match.head or kept != match:
            raise DamagedArchiveError(f"the archived copy of match {match.match_id!r} differs from Redis's")
        self._stop("verified")
        return receipt.size

    def _leave(self, match: ArchivedMatch, size: int) -> Outcome:
        """Take the verified match out of Redis, leaving its index entry."""
        entry, pointer = IndexEntry(match.count, match.finished_at, match.head), read_pointer(self._client)
        left = leaving.leave(self._client, match.match_id, entry, _generations(pointer))
        if left == leaving.CHANGED:
            return Outcome(match.match_id, "changed")
        if left == leaving.UNPROJECTED:
            return Outcome(match.match_id, "unprojected")
        self._stop("left")
        self._retire(match.match_id, match.events, pointer)
        self.due_list.forget(match.match_id)
        if left == leaving.ALREADY:
            return Outcome(match.match_id, "already")
        self.totals.archived(size)
        return Outcome(match.match_id, "archived", size)


def _generations(pointer: Pointer) -> list[int]:
    """The generation served, then every other whose read models may hold a match."""
    return [pointer.generation, *sorted(set(range(max(pointer.generation, pointer.building or 0) + 1))
                                        - {pointer.generation})]


def _players(events: Sequence[StoredEvent]) -> list[str]:
    """The ids of the match's seated players, from its events."""
    found = []
    for event in events:
        if event.type == "match_created":
            found.append(event.data["creator_id"])
        elif event.type == "player_joined":
            found.append(event.data["player_id"])
    return found
