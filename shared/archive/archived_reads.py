"""Reading a match wherever it lives: its stream in Redis, or the archive once it left.

:class:`ArchivedReads` is an event store that holds the streams' store and reads past it:
a read that finds no events, of a match the index (:mod:`.index`) says is archived, is
answered from the archived record, sliced as the stream would have been. Every reader
(the API's views, log and replays, the operator's export, audit and replay, a rebuild)
takes one, so an archived match reads exactly as it did in Redis. Writes go to Redis
unchanged; a finished match refuses them anyway.

A match that was read is kept a while (:class:`ArchivedMatchCache`, bounded in count and
in age), so a replay stepped through by spectators reads the archive once, not per request.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from itertools import chain
from typing import Any, Generic, TypeVar

from shared.archive.index import ArchiveIndex
from shared.archive.opening import open_archive
from shared.archive.port import Archive, ArchivedMatch, ArchiveUnavailableError, DamagedArchiveError, Receipt
from shared.eventstore.append_tokens import AppendToken, TokenRecord
from shared.eventstore.port import Appended, NewEvent, StoredEvent, check_read
from shared.eventstore.store_errors import ConcurrencyError
from shared.seeds import Seeds

CACHED_MATCHES = 256  # decoded archived matches a process keeps: a few MB at most
CACHED_SECONDS = 60.0  # how long one is kept after it was read from the archive

T = TypeVar("T")


class KeptAWhile(Generic[T]):
    """Values read lately, by match id (LRU, at most ``size``, each for ``seconds``; thread-safe).

    What is kept of an archived match never changes, so the age limit only bounds how long
    memory holds one nobody reads; the size limit bounds the memory.
    """

    def __init__(self, size: int, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.size, self._seconds, self._clock = size, seconds, clock
        self._entries: OrderedDict[str, tuple[float, T]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, match_id: str) -> T | None:
        """The value if it was kept and is not too old."""
        with self._lock:
            found = self._entries.get(match_id)
            if found is None:
                return None
            if self._clock() - found[0] > self._seconds:
                del self._entries[match_id]
                return None
            self._entries.move_to_end(match_id)
            return found[1]

    def keep(self, match_id: str, value: T) -> None:
        """Keep ``value``, dropping the least recently read past the size."""
        with self._lock:
            self._entries[match_id] = (self._clock(), value)
            self._entries.move_to_end(match_id)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def clear(self) -> None:
        """Forget everything kept (a player renamed or erased: what was kept may name them)."""
        with self._lock:
            self._entries.clear()


class ArchivedMatchCache(KeptAWhile[ArchivedMatch]):
    """Archived matches read lately (at most ``size``, each for ``seconds``)."""

    def __init__(self, size: int = CACHED_MATCHES, seconds: float = CACHED_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(size, seconds, clock)

    def put(self, match: ArchivedMatch) -> None:
        """Keep ``match``, dropping the least recently read past the size."""
        self.keep(match.match_id, match)


class NoArchive:
    """The archive of a server that has none configured: it holds nothing, and an index
    entry met without it cannot be read (503 ``ARCHIVE_UNAVAILABLE``, never a 500)."""

    def put(self, match: ArchivedMatch) -> Receipt:
        raise ArchiveUnavailableError("no archive is configured")

    def get(self, match_id: str) -> ArchivedMatch | None:
        raise ArchiveUnavailableError(f"match {match_id!r} is archived, and no archive is configured")

    def match_ids(self) -> Iterator[str]:
        return iter(())

    def check(self) -> None:
        raise ArchiveUnavailableError("no archive is configured")


class ArchivedReads:
    """An event store whose reads reach the archive for the matches that left Redis.

    ``store`` is the streams' store (its marks and tokens are passed through too), ``index``
    the archived matches' entries, ``archive`` where they went. A record that disagrees
    with its index entry (count, chain head) is :class:`DamagedArchiveError`.
    """

    def __init__(self, store: Any, index: ArchiveIndex, archive: Archive,
                 cache: ArchivedMatchCache | None = None) -> None:
        self.streams, self.index, self.archive = store, index, archive
        self.cache = cache or ArchivedMatchCache()

    # --- reads --------------------------------------------------------------------

    def read(self, match_id: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        """Events with ``version > after``, from the stream or else from the archive."""
        events = self.streams.read(match_id, after, limit)
        if events or limit == 0:
            return events
        archived = self.archived(match_id)
        if archived is None:
            return events
        check_read(after, limit)
        return list(archived.events[after:None if limit is None else after + limit])

    def version(self, match_id: str) -> int:
        """The stream's version, or the archived match's event count (the index has it: no archive read)."""
        version = self.streams.version(match_id)
        if version:
            return version
        entry = self.index.get(match_id)
        return 0 if entry is None else entry.count

    def match_ids(self) -> Iterator[str]:
        """Every match with events: those in Redis, then those archived (each once)."""
        seen: set[str] = set()
        for match_id in chain(self.streams.match_ids(), self.index.match_ids()):
            if match_id not in seen:
                seen.add(match_id)
                yield match_id

    def is_archived(self, match_id: str) -> bool:
        """Whether the match left Redis for the archive (one look at the index)."""
        return self.index.get(match_id) is not None

    def archived(self, match_id: str) -> ArchivedMatch | None:
        """The archived match (from the cache if read lately); None if it is not archived."""
        entry = self.index.get(match_id)
        if entry is None:
            return None
        kept = self.cache.get(match_id)
        if kept is not None:
            return kept
        match = self.archive.get(match_id)
        if match is None:
            raise DamagedArchiveError(f"match {match_id!r} is archived, but the archive holds no record of it")
        if (match.count, match.head) != (entry.count, entry.head):
            raise DamagedArchiveError(f"the archived record of {match_id!r} is not the match its index entry names")
        self.cache.put(match)
        return match

    # --- passed through to the streams' store ----------------------------------------

    def append(self, match_id: str, events: Sequence[NewEvent], expected_version: int,
               token: AppendToken | None = None) -> int:
        return self.streams.append(match_id, events, expected_version, token)

    def append_events(self, match_id: str, events: Sequence[NewEvent], expected_version: int,
                      token: AppendToken | None = None, alongside: Any = None) -> Appended:
        return self.streams.append_events(match_id, events, expected_version, token, alongside)

    def import_events(self, match_id: str, events: Sequence[StoredEvent]) -> int:
        """Into an empty stream of a match that is not archived either (it has events, elsewhere)."""
        entry = self.index.get(match_id)
        if entry is not None:
            raise ConcurrencyError(0, entry.count, match_id)
        return self.streams.import_events(match_id, events)

    def token(self, match_id: str, key: str) -> TokenRecord | None:
        return self.streams.token(match_id, key)

    def remember_refusal(self, match_id: str, token: AppendToken, refusal: str) -> TokenRecord | None:
        return self.streams.remember_refusal(match_id, token, refusal)

    def unprojected(self) -> Iterator[str]:
        return self.streams.unprojected()

    def unprojected_count(self) -> int:
        return self.streams.unprojected_count()

    def unprojected_listed(self) -> Iterator[str]:
        return self.streams.unprojected_listed()

    def mark_projected(self, match_id: str, version: int) -> bool:
        return self.streams.mark_projected(match_id, version)


class ArchivedSeeds:
    """The seeds, with an archived match's read from its archived record (the vault's key left with it)."""

    def __init__(self, seeds: Seeds, reads: ArchivedReads) -> None:
        self._seeds, self._reads = seeds, reads

    def put(self, match_id: str, seed: str) -> None:
        self._seeds.put(match_id, seed)

    def get(self, match_id: str) -> str | None:
        seed = self._seeds.get(match_id)
        if seed is not None:
            return seed
        archived = self._reads.archived(match_id)
        return None if archived is None else archived.seed


def is_archived(store: Any, match_id: str) -> bool:
    """Whether ``store`` reads archived matches and ``match_id`` is one of them."""
    return isinstance(store, ArchivedReads) and store.is_archived(match_id)


def archive_of(config: Any) -> Archive:
    """The archive the settings name (``ARCHIVE_URL``): what every reader of a server opens."""
    return open_archive(config)


def archived_reads(store: Any, client: Any, archive: Archive) -> ArchivedReads:
    """``store``'s streams and the matches archived out of ``client``'s Redis into ``archive``."""
    return ArchivedReads(store, ArchiveIndex(client), archive)
