"""An in-memory event store, for unit tests and single-process experiments."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import Any

from shared.eventstore.append_tokens import REFUSALS_KEPT, AppendToken, TokenRecord
from shared.eventstore.chain import genesis_hash, link_hashes
from shared.eventstore.port import (
    Appended,
    Clock,
    NewEvent,
    StoredEvent,
    check_append,
    check_import,
    check_read,
    decode_data,
    encode_data,
    system_clock,
)
from shared.eventstore.store_errors import ConcurrencyError, DuplicateAppendError
from shared.keys import validate_match_id


class InMemoryEventStore:
    """The :class:`~shared.eventstore.port.EventStore` contract (with its marks and tokens), in a dict.

    Thread-safe: one lock serialises every call, which is what makes the
    version check and the append a single atomic step here.
    """

    def __init__(self, clock: Clock = system_clock) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        # Data is kept as JSON bytes, like in Redis, so callers can never alias it.
        self._streams: dict[str, list[tuple[str, int, int, bytes, str]]] = {}
        self._marks: dict[str, int] = {}
        self._tokens: dict[tuple[str, str], TokenRecord] = {}
        self._refusals: dict[str, int] = {}  # refusals kept per match (capped; memory has no expiry)

    def append(
        self, match_id: str, events: Sequence[NewEvent], expected_version: int,
        token: AppendToken | None = None,
    ) -> int:
        """Append if the stream is at ``expected_version``; return the new version."""
        return self.append_events(match_id, events, expected_version, token).version

    def append_events(
        self, match_id: str, events: Sequence[NewEvent], expected_version: int,
        token: AppendToken | None = None, alongside: Any = None,
    ) -> Appended:
        """``append``, returning the events as stored; every append asks for a catch-up here. No
        Redis command goes ``alongside`` an append in memory."""
        if alongside is not None:
            raise ValueError("an in-memory event store sends no Redis command alongside an append")
        validate_match_id(match_id)
        check_append(events, expected_version)
        encoded = [(e.type, e.schema_version, encode_data(e.data)) for e in events]
        with self._lock:
            stream = self._streams.get(match_id, [])
            if token is not None and (match_id, token.key) in self._tokens:
                raise DuplicateAppendError(self._tokens[match_id, token.key])
            if len(stream) != expected_version:
                raise ConcurrencyError(expected_version, len(stream), match_id)
            at = self._clock()
            previous = stream[-1][4] if stream else genesis_hash(match_id)
            links = link_hashes(previous, expected_version + 1, encoded, at)
            stream.extend((type_, schema, at, data, link) for (type_, schema, data), link in zip(encoded, links))
            self._streams[match_id] = stream
            self._marks[match_id] = len(stream)
            if token is not None:
                first = expected_version + 1
                self._tokens[match_id, token.key] = TokenRecord(token.fingerprint, first, len(stream))
        stored = [
            StoredEvent(match_id, version, type_, schema, at, decode_data(data), link)
            for version, ((type_, schema, data), link) in enumerate(zip(encoded, links), expected_version + 1)
        ]
        return Appended(expected_version + len(events), stored, True)

    def remember_refusal(self, match_id: str, token: AppendToken, refusal: str) -> TokenRecord | None:
        """Claim ``token`` for a refused request; the record that was there first, if any."""
        validate_match_id(match_id)
        with self._lock:
            earlier = self._tokens.get((match_id, token.key))
            if earlier is None and self._refusals.get(match_id, 0) < REFUSALS_KEPT:
                self._tokens[match_id, token.key] = TokenRecord(token.fingerprint, 0, 0, refusal)
                self._refusals[match_id] = self._refusals.get(match_id, 0) + 1
            return earlier

    def import_events(self, match_id: str, events: Sequence[StoredEvent]) -> int:
        """Write an exported match verbatim into an empty stream."""
        validate_match_id(match_id)
        check_import(events)
        rows = [(e.type, e.schema_version, e.at, encode_data(e.data), e.hash) for e in events]
        with self._lock:
            if self._streams.get(match_id):
                raise ConcurrencyError(0, len(self._streams[match_id]), match_id)
            self._streams[match_id] = rows
            self._marks[match_id] = len(rows)
            return len(rows)

    def token(self, match_id: str, key: str) -> TokenRecord | None:
        """What the append with token ``key`` recorded in this match, if any."""
        validate_match_id(match_id)
        with self._lock:
            return self._tokens.get((match_id, key))

    def read(
        self, match_id: str, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        """Events with ``version > after``, oldest first, at most ``limit``."""
        validate_match_id(match_id)
        check_read(after, limit)
        with self._lock:
            stream = self._streams.get(match_id, [])
            end = len(stream) if limit is None else min(len(stream), after + limit)
            rows = stream[after:end]
        return [
            StoredEvent(match_id, after + i + 1, type_, schema, at, decode_data(data), link)
            for i, (type_, schema, at, data, link) in enumerate(rows)
        ]

    def version(self, match_id: str) -> int:
        """The latest version of the match; 0 if it has no events."""
        validate_match_id(match_id)
        with self._lock:
            return len(self._streams.get(match_id, ()))

    def unprojected(self) -> Iterator[str]:
        """Ids of the matches carrying the unprojected mark (a snapshot)."""
        with self._lock:
            marked = list(self._marks)
        return iter(marked)

    def unprojected_count(self) -> int:
        """How many matches carry the mark."""
        with self._lock:
            return len(self._marks)

    def unprojected_listed(self) -> Iterator[str]:
        """The marked matches (memory needs no separate index)."""
        return self.unprojected()

    def mark_projected(self, match_id: str, version: int) -> bool:
        """Clear the mark unless a newer append set it; True if no mark remains."""
        validate_match_id(match_id)
        with self._lock:
            mark = self._marks.get(match_id)
            if mark is not None and mark > version:
                return False
            self._marks.pop(match_id, None)
            return True

    def match_ids(self) -> Iterator[str]:
        """Ids of every match with at least one event (a snapshot)."""
        with self._lock:
            ids = list(self._streams)
        return iter(ids)
