"""The one fold of stored events into a match: every reader of a stream calls it.

The command side, the event feed and replay, the live stream, the projector, the CLI and
the benchmarks all turn stored events into a :class:`FoldedMatch` here, so they cannot
disagree about what a stream means. A :class:`FoldCache` keeps recently folded matches,
so a reader folds only the events it has not seen; :mod:`shared.checkpoints` keeps folds
along a match for replays at any version. A long page folds off gevent's event loop
(:func:`fold_page`): a cold fold of a long match must not stall the API process.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol, TypeVar

from shared.codec import decode
from shared.eventstore.port import EventStore, StoredEvent
from shared.eventstore.store_errors import CorruptEventError
from shared.offloop import off_loop
from shared.rules import INITIAL, Event, MatchState, Status, clocked, evolve
from shared.rules.events import RoundWon
from shared.rules.state import copy_with, with_seat

PAGE_SIZE = 500  # events per read: a whole match in one round trip, bounded memory
OFF_LOOP_EVENTS = 200  # a page longer than this folds off the event loop (some 3 ms of CPU and up)

T = TypeVar("T")


class GapError(ValueError):
    """Stored events that do not continue the folded version without a gap."""


@dataclass(frozen=True)
class FoldedMatch:
    """A match folded up to ``version``: the rules state and what only the stream knows.

    ``state`` carries the clock: ``state.at`` is ``at``, the time of the latest event.
    """

    match_id: str
    version: int = 0
    state: MatchState = INITIAL
    created_at: int | None = None  # epoch ms of the match's first event
    at: int | None = None  # epoch ms of the latest event folded
    rounds_won: tuple[int, int] = (0, 0)  # (A, B)
    points_won: tuple[int, int] = (0, 0)  # points of the rounds each seat won, (A, B)

    @property
    def status(self) -> Status:
        """The match's status at ``version``."""
        return self.state.status


def fold(
    folded: FoldedMatch, stored: Iterable[StoredEvent], decoded: Sequence[Event] | None = None,
    stepped: MatchState | None = None,
) -> FoldedMatch:
    """Fold ``stored`` (oldest first, continuing ``folded.version``) into the match.

    ``decoded``: the engine events ``stored`` records, when the caller holds them (an
    append's own, just encoded from them): they are not decoded again. ``stepped``: the
    state they lead to from ``folded.state``, when the engine's ``step`` gave them with it
    (the service's append): they are not evolved again either.
    Raises :class:`GapError` on a missing or repeated version, and the codec's
    ``UnknownEventError`` on an event this code cannot read.
    """
    # Locals, and one FoldedMatch at the end: a rebuild folds every event of every match here.
    version, state, created_at, at = folded.version, folded.state, folded.created_at, folded.at
    rounds_won, points_won = folded.rounds_won, folded.points_won
    given = None if decoded is None else iter(decoded)
    for record in stored:
        if record.version != version + 1:
            raise GapError(f"match {folded.match_id!r}: expected version {version + 1}, got {record.version}")
        event = decode(record) if given is None else next(given)
        if stepped is None:
            state = evolve(state, event)  # before the tally: an event the rules cannot fold counts nothing
        if isinstance(event, RoundWon):
            seat = event.seat
            rounds_won = with_seat(rounds_won, seat, rounds_won[seat.index] + 1)
            points_won = with_seat(points_won, seat, points_won[seat.index] + event.points)
        version, at = record.version, record.at
        if created_at is None:
            created_at = record.at
    if version == folded.version:
        return folded
    state = clocked(state if stepped is None else stepped, at)  # the clock runs from the latest event (R28)
    return copy_with(folded, version=version, state=state, created_at=created_at, at=at,
                     rounds_won=rounds_won, points_won=points_won)


def fold_stream(store: EventStore, folded: FoldedMatch, page_size: int = PAGE_SIZE) -> FoldedMatch:
    """Fold every stored event after ``folded.version``, reading page by page; raises what the fold raises."""
    while True:
        page = store.read(folded.match_id, after=folded.version, limit=page_size)
        folded = fold_page(folded, page)
        if len(page) < page_size:
            return folded


class ReadsThen(Protocol):
    """An event store whose reads can carry one more command of the caller's (``RedisEventStore``)."""

    def read(self, match_id: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        """The events after ``after``, as the port's ``read``."""
        ...

    def read_then(
        self, match_id: str, after: int, limit: int | None, then: Callable[[Any], Any],
    ) -> tuple[list[StoredEvent], Any]:
        """The events after ``after`` and the replies of what ``then`` queued after their read."""
        ...


def fold_stream_then(
    store: ReadsThen, folded: FoldedMatch, then: Callable[[Any], Any], page_size: int = PAGE_SIZE,
    *, passes: tuple[type[BaseException], ...] = (),
) -> Reach:
    """:func:`fold_to_refusal`, with the replies of the commands ``then`` queues after each page's
    read, in its round trip: those from after the last page, so read after every event folded."""
    return _fold_pages(lambda after: store.read_then(folded.match_id, after, page_size, then),
                       folded, page_size, passes, store)


@dataclass(frozen=True)
class Refusal:
    """The first event of a match the fold refuses (or the store cannot read), and why."""

    version: int
    error: Exception


@dataclass(frozen=True)
class Reach:
    """How far a fold of new events got: the match folded, the replies that rode along its last
    read (see :func:`fold_stream_then`), and the refusal that stopped it (None: every event folded)."""

    match: FoldedMatch
    reply: Any = None
    refusal: Refusal | None = None


def fold_to_refusal(
    store: EventStore, folded: FoldedMatch, page_size: int = PAGE_SIZE,
    *, passes: tuple[type[BaseException], ...] = (),
) -> Reach:
    """Fold every stored event after ``folded.version`` up to the first the fold refuses.

    One pass: a refused page is folded again event by event (it is in memory already), so the
    match stops right before the refused event. An entry the store cannot read is refused too,
    the entries before it folded. ``passes``: errors that say nothing of an event (a store away,
    a timeout), raised as they are.
    """
    return _fold_pages(lambda after: (store.read(folded.match_id, after=after, limit=page_size), None),
                       folded, page_size, passes, store)


def _fold_pages(
    read_page: Callable[[int], tuple[list[StoredEvent], Any]], folded: FoldedMatch, page_size: int,
    passes: tuple[type[BaseException], ...], store: EventStore | ReadsThen,
) -> Reach:
    """Fold the pages ``read_page(after)`` gives until one is short or an event is refused."""
    while True:
        try:
            page, reply = read_page(folded.version)
        except CorruptEventError as unreadable:
            return _up_to_unreadable(store, folded, unreadable, passes)
        folded, refusal = fold_page(folded, page, partial(_refusing, passes=passes))
        if refusal is not None or len(page) < page_size:
            return Reach(folded, None if refusal else reply, refusal)


def _up_to_unreadable(
    store: EventStore | ReadsThen, folded: FoldedMatch, unreadable: CorruptEventError,
    passes: tuple[type[BaseException], ...],
) -> Reach:
    """The readable events before an entry the store cannot read, folded; that entry refused."""
    readable = store.read(folded.match_id, after=folded.version, limit=unreadable.version - folded.version - 1)
    folded, refusal = _refusing(folded, readable, passes)
    return Reach(folded, None, refusal or Refusal(unreadable.version, unreadable))


def _refusing(
    folded: FoldedMatch, page: Sequence[StoredEvent], passes: tuple[type[BaseException], ...],
) -> tuple[FoldedMatch, Refusal | None]:
    """``page`` folded, or, if the fold refuses it, folded event by event up to the refused one."""
    try:
        return fold(folded, page), None
    except passes:
        raise
    except Exception:  # noqa: BLE001 - some event of the page is refused: find which, below
        pass
    for stored in page:
        try:
            folded = fold(folded, [stored])
        except passes:
            raise
        except Exception as error:  # noqa: BLE001 - whatever the fold raises, this event caused it
            return folded, Refusal(stored.version, error)
    return folded, None


def fold_page(
    folded: FoldedMatch, page: Sequence[StoredEvent],
    work: Callable[[FoldedMatch, Sequence[StoredEvent]], T] = fold,
) -> T:
    """``work(folded, page)`` (the fold, by default): off the event loop if the page is long.

    The events are read already: folding them is pure CPU, no I/O and no lock, which is
    what may run on another thread (:mod:`shared.offloop`).
    """
    return off_loop(work, folded, page) if len(page) > OFF_LOOP_EVENTS else work(folded, page)


def pages_up_to(store: EventStore, match_id: str, after: int, version: int) -> Iterator[list[StoredEvent]]:
    """The events after ``after`` up to ``version``, a page (``PAGE_SIZE``) at a time: never one long read."""
    while after < version:
        page = store.read(match_id, after=after, limit=min(PAGE_SIZE, version - after))
        if not page:
            return
        yield page
        after = page[-1].version


def fold_up_to(store: EventStore, match_id: str, version: int) -> FoldedMatch:
    """The match as it stood right after event ``version``, folded from nothing, page by page."""
    folded = FoldedMatch(match_id)
    for page in pages_up_to(store, match_id, 0, version):
        folded = fold_page(folded, page)
    return folded


class FoldCache:
    """The latest fold of recently used matches (LRU, thread-safe).

    A miss folds the match from version 0, page by page. A fold is kept unless a further
    one of the same match is cached already.
    """

    def __init__(self, capacity: int = 1024) -> None:
        self._capacity = capacity
        self._entries: OrderedDict[str, FoldedMatch] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, match_id: str) -> FoldedMatch | None:
        """The cached fold of the match, if any."""
        with self._lock:
            folded = self._entries.get(match_id)
            if folded is not None:
                self._entries.move_to_end(match_id)
            return folded

    def put(self, folded: FoldedMatch) -> None:
        """Keep ``folded`` unless a further fold of the same match is cached."""
        with self._lock:
            cached = self._entries.get(folded.match_id)
            if cached is None or cached.version < folded.version:
                self._entries[folded.match_id] = folded
            self._entries.move_to_end(folded.match_id)
            while len(self._entries) > self._capacity:
                self._entries.popitem(last=False)

    def latest(self, store: EventStore, match_id: str) -> FoldedMatch:
        """The match folded to the end of its stream, from the cached fold on; cached again, unless
        it has no events: a random id must not evict a match's fold."""
        folded = fold_stream(store, self.get(match_id) or FoldedMatch(match_id))
        if folded.version:
            self.put(folded)
        return folded
