"""Recording decided events: the append, its catch-up request, and deciding again after a race.

A use case decides on the match at some version and appends with that version. A
concurrent append makes the append fail (ConcurrencyError); :func:`retrying` then loads
the stream as it is and decides again, so a client only sees a conflict when it asked to
(If-Match).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from shared.codec import encode
from shared.directory import name_reads, names_read
from shared.eventstore import Appended, AppendToken, ConcurrencyError, NotDurableError, StoredEvent
from shared.eventstore.alongside import Alongside
from shared.fold import FoldedMatch, fold
from shared.observability import metrics
from shared.readmodels.projection import seated_ids
from shared.rules import Event, MatchState, Seat, Step
from shared.seeds import seed_write

from .application_errors import BusyError
from .loading import existing
from .matches import Matches, RidingRequest

RETRIES = 20  # concurrent appends to one match are rare and short: retry, don't fail


@dataclass(frozen=True)
class Recorded:
    """What a use case recorded: the match as it now stands and the new stored events."""

    match_id: str
    version: int
    state: MatchState
    events: list[StoredEvent]
    seat: Seat | None  # the seat of the player who asked
    decided: tuple[Event, ...] | None = None  # the engine events ``events`` record, when this request decided them
    names: dict[str, str] | None = None  # the seated players' names, when read in the append's round trip


Attempt = Callable[[FoldedMatch, bool], Recorded | None]
"""Decides on the match (read from the stream just now if the flag is set) and records it;
None to decide again on the stream."""


def record(
    matches: Matches, match: FoldedMatch, stepped: Step, seat: Seat | None, token: AppendToken | None = None,
    seed: str | None = None, named: bool = False,
) -> Recorded:
    """Append the events of ``stepped``, the engine's step on ``match``, at its version;
    ConcurrencyError if the stream moved on. ``seed``: a new match's, stored before it unless
    stored already; ``named``: read the seated players' names too (the view of a create or join).
    With ``matches.alongside`` both go in the append's round trip, and with ``matches.riding``
    the catch-up request too (it files the match only if the append asks for a catch-up)."""
    events, encoded = stepped.events, [encode(e) for e in stepped.events]
    seated = seated_ids(stepped.state) if named and matches.alongside else ()
    riding = None if matches.riding is None else matches.riding(match.match_id, match.version + len(events))
    if seed is not None and not matches.alongside:  # stored before the match exists: it deals from it
        matches.chances.store(match.match_id, seed)
    writes = () if seed is None or not matches.alongside else (seed_write(match.match_id, seed),)
    naming = name_reads(seated)
    reads = naming + (() if riding is None else (riding[0],))
    alongside = Alongside(writes, reads) if writes or reads else None
    try:
        appended = matches.store.append_events(match.match_id, encoded, match.version, token, alongside)
    except NotDurableError as unconfirmed:  # recorded on the master all the same: have it projected
        if unconfirmed.appended is not None:
            _ask_catch_up(matches, match.match_id, unconfirmed.appended, riding)
        raise
    metrics.record_append(len(appended.events))
    _ask_catch_up(matches, match.match_id, appended, riding)
    now = fold(match, appended.events, events, stepped.state)  # just stepped: not decoded nor evolved again
    matches.folds.put(now)
    names = names_read(seated, appended.read_alongside[:len(naming)]) if seated else None
    return Recorded(now.match_id, now.version, now.state, appended.events, seat, tuple(events), names)


def _ask_catch_up(matches: Matches, match_id: str, appended: Appended, riding: RidingRequest | None) -> None:
    """Have the projector catch the match up if the append asked for it (else a queued catch-up
    that has not read yet folds these events too), unless the request that rode it did."""
    if not appended.ask_catch_up:
        return
    if riding is not None and appended.read_alongside and riding[1](appended.read_alongside[-1]):
        return
    matches.notify(match_id)


def retrying(matches: Matches, match_id: str, attempt: Attempt, cached: FoldedMatch | None = None) -> Recorded:
    """Run ``attempt`` until it records: first on ``cached`` if given, then on the stream as it is.

    A concurrent append (ConcurrencyError) or an attempt that returns None is tried again on
    the stream; BusyError after RETRIES tries.
    """
    for _ in range(RETRIES):
        fresh = cached is None
        match = existing(matches, match_id) if cached is None else cached
        cached = None
        try:
            recorded = attempt(match, fresh)
        except ConcurrencyError:
            continue
        if recorded is not None:
            return recorded
    raise BusyError(match_id)
