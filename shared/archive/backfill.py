"""Listing on the due list the finished matches it never saw: those that ended before it existed.

The projector lists a match when it folds the match's end; a match that ended before the
archive came (or whose listing was lost with a Redis restored from an older copy) is on no
list, and would stay in Redis for ever. :func:`backfill` walks the streams (SCAN, a batch of
keys at a time, one pipelined round trip per batch reading each stream's last event) and
lists every match whose last event ends it, scored by that event's time, as the projector
would have. Run again, it lists nothing new: a listed match keeps its entry.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any

from shared import keys
from shared.archive.archiving import FINAL_EVENTS
from shared.archive.due import DueMatches
from shared.eventstore.entries import to_stored
from shared.eventstore.store_errors import CorruptEventError

SCAN_COUNT = 1000  # keys per SCAN step
BATCH = 500  # streams whose last event is read in one round trip


@dataclass(frozen=True)
class Backfilled:
    """What a backfill found: streams looked at, finished matches among them, those newly listed, unreadable ones."""

    streams: int = 0
    finished: int = 0
    listed: int = 0
    unreadable: tuple[str, ...] = ()

    def __add__(self, other: Backfilled) -> Backfilled:
        return Backfilled(self.streams + other.streams, self.finished + other.finished,
                          self.listed + other.listed, self.unreadable + other.unreadable)


def backfill(client: Any, batch: int = BATCH) -> Backfilled:
    """List every finished match the streams hold on the due list (idempotent); what was found."""
    found, due = Backfilled(), DueMatches(client)
    for match_ids in _batches(client, batch):
        found += _list_batch(client, due, match_ids)
    return found


def _batches(client: Any, size: int) -> Iterator[list[str]]:
    """The ids of the matches with a stream, ``size`` at a time (each once: SCAN may repeat a key)."""
    chunks = _stream_ids(client)
    while chunk := list(islice(chunks, size)):
        yield chunk


def _stream_ids(client: Any) -> Iterator[str]:
    seen: set[str] = set()
    for key in client.scan_iter(match=keys.MATCH_EVENTS_PATTERN, count=SCAN_COUNT):
        match_id = keys.match_id_from_key(key)
        if match_id not in seen:
            seen.add(match_id)
            yield match_id


def _list_batch(client: Any, due: DueMatches, match_ids: list[str]) -> Backfilled:
    """Read the last event of each stream in one round trip; list the finished ones."""
    pipe = client.pipeline(transaction=False)
    for match_id in match_ids:
        pipe.xrevrange(keys.match_events(match_id), "+", "-", count=1)
    ended, unreadable = {}, []
    for match_id, entries in zip(match_ids, pipe.execute()):
        if not entries:
            continue  # archived or deleted between the scan and the read
        try:
            last = to_stored(match_id, *entries[0])
        except CorruptEventError:
            unreadable.append(match_id)
            continue
        if last.type in FINAL_EVENTS:
            ended[match_id] = last.at
    return Backfilled(len(match_ids), len(ended), due.list_missing(ended), tuple(unreadable))
