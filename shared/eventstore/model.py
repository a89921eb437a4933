"""The event store port: its values, its errors and its contract.

One stream per match with a gapless version: the first event of a match has
version 1, the n-th has version n. Writers append with the version they read
(optimistic concurrency); exactly one of two racers wins.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import orjson

Clock = Callable[[], int]
"""Returns the current time as integer milliseconds since the Unix epoch."""


def system_clock() -> int:
    """Wall-clock time in epoch milliseconds (the default clock of the stores)."""
    return time.time_ns() // 1_000_000


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event about to be appended: what happened, not yet where or when."""

    type: str
    data: Mapping[str, Any]
    schema_version: int = 1


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """An event as recorded: its match, version and timestamp (epoch ms) added."""

    match_id: str
    version: int
    type: str
    schema_version: int
    at: int
    data: dict[str, Any]
    hash: str = ""  # this event's link in the match's hash chain (see chain_hash)


class EventStoreError(Exception):
    """Base class of the event store's errors."""


@dataclass(frozen=True, slots=True)
class AppendToken:
    """Makes an append idempotent: a second append with the same ``key`` records nothing.

    ``key`` is unique within the match (e.g. a hash of the client and its Idempotency-Key);
    ``fingerprint`` identifies the request, so a caller can tell a retry from a reuse.
    """

    key: str
    fingerprint: str


@dataclass(frozen=True, slots=True)
class TokenRecord:
    """What the first request with a token got: the versions it appended, or its refusal.

    A refusal (``refusal`` set, versions 0) is remembered too, so that a retry of a refused
    request is refused the same way instead of acting on a state that moved on.
    """

    fingerprint: str
    first_version: int
    last_version: int
    refusal: str | None = None  # the refusal answered, as the caller serialised it

    def encode(self) -> str:
        text = f"{self.first_version} {self.last_version} {self.fingerprint}"
        return text if self.refusal is None else f"{text} {self.refusal}"

    @classmethod
    def decode(cls, raw: bytes | str) -> TokenRecord:
        text = raw.decode() if isinstance(raw, bytes) else raw
        first, last, fingerprint, *refusal = text.split(" ", 3)
        return cls(fingerprint, int(first), int(last), refusal[0] if refusal else None)


class DuplicateAppendError(EventStoreError):
    """An append's token was used before: nothing new was recorded."""

    def __init__(self, record: TokenRecord) -> None:
        self.record = record
        super().__init__(f"already appended as versions {record.first_version}-{record.last_version}")


class CorruptEventError(EventStoreError):
    """A stored entry that cannot be read back (damaged by hand, or by a foreign writer)."""

    def __init__(self, match_id: str, version: int, cause: Exception) -> None:
        self.match_id, self.version = match_id, version
        super().__init__(f"match {match_id!r} version {version} is unreadable: {cause}")


class ConcurrencyError(EventStoreError):
    """The stream moved on since the writer read it: reload, decide again, retry."""

    def __init__(self, expected: int, actual: int, match_id: str | None = None) -> None:
        self.expected = expected
        self.actual = actual
        self.match_id = match_id
        where = f" of match {match_id!r}" if match_id else ""
        super().__init__(f"expected version {expected}{where}, but it is at {actual}")


def check_append(events: Sequence[NewEvent], expected_version: int) -> None:
    """Refuse malformed appends the same way in every implementation."""
    if not events:
        raise ValueError("append needs at least one event")
    if isinstance(expected_version, bool) or not isinstance(expected_version, int):
        raise TypeError("expected_version must be an int")
    if expected_version < 0:
        raise ValueError("expected_version must be >= 0")
    for event in events:
        if not isinstance(event, NewEvent):
            raise TypeError(f"expected NewEvent, got {type(event).__name__}")
        if not event.type:
            raise ValueError("an event needs a type")
        if isinstance(event.schema_version, bool) or not isinstance(event.schema_version, int):
            raise TypeError("schema_version must be an int")


def check_import(events: Sequence[StoredEvent]) -> None:
    """An import is a whole match: versions 1..n, each with its chain link."""
    if not events:
        raise ValueError("an import needs at least one event")
    for expected, event in enumerate(events, 1):
        if event.version != expected:
            raise ValueError(f"an import must hold versions 1..n in order; found {event.version} at {expected}")


def check_read(after: int, limit: int | None) -> None:
    """Refuse malformed reads the same way in every implementation."""
    if after < 0:
        raise ValueError("after must be >= 0")
    if limit is not None and limit < 0:
        raise ValueError("limit must be >= 0 or None")


def genesis_hash(match_id: str) -> str:
    """The "previous link" of a match's first event: binds the chain to its match."""
    return hashlib.sha256(f"truc-genesis\n{match_id}".encode()).hexdigest()


def chain_hash(previous: str, version: int, type_: str, schema_version: int, at: int, data: bytes) -> str:
    """The tamper-evident link of one event: SHA-256 over the previous link and its own content.

    ``sha256(previous || "\n" || f"{version}\n{type}\n{schema_version}\n{at}\n" || data)``,
    hex, where ``data`` is the event's JSON bytes as stored. Changing, dropping or
    reordering any event breaks every link after it.
    """
    head = f"{previous}\n{version}\n{type_}\n{schema_version}\n{at}\n".encode()
    return hashlib.sha256(head + data).hexdigest()


def link_hashes(previous: str, first_version: int, events: Sequence[tuple[str, int, bytes]], at: int) -> list[str]:
    """Chain links for (type, schema, data bytes) appended from ``first_version`` on at ``at``."""
    links = []
    for offset, (type_, schema, data) in enumerate(events):
        previous = chain_hash(previous, first_version + offset, type_, schema, at, data)
        links.append(previous)
    return links


# Both stores keep event data as these JSON bytes, so they accept and return
# exactly the same values (no tuples or non-string keys sneaking through memory).
def encode_data(data: Mapping[str, Any]) -> bytes:
    """Serialise event data to JSON bytes (orjson: fast, UTF-8, strict keys)."""
    return orjson.dumps(dict(data))


def decode_data(raw: bytes | str) -> dict[str, Any]:
    """Parse event data written by :func:`encode_data`."""
    return orjson.loads(raw)


@runtime_checkable
class EventStore(Protocol):
    """What the command API and the projector need from an event store."""

    def append(
        self, match_id: str, events: Sequence[NewEvent], expected_version: int,
        token: AppendToken | None = None,
    ) -> int:
        """Append ``events`` if the stream is at ``expected_version``; return the new version.

        Also marks the match as having unprojected events, in the same atomic
        step. Raises :class:`ConcurrencyError` (recording nothing) if the stream
        is at another version, and ``ValueError`` for an empty batch. With a
        ``token`` already used in this match, raises :class:`DuplicateAppendError`
        (checked first, recording nothing).
        """
        ...

    def token(self, match_id: str, key: str) -> TokenRecord | None:
        """What the append with token ``key`` recorded in this match, if any."""
        ...

    def remember_refusal(self, match_id: str, token: AppendToken, refusal: str) -> TokenRecord | None:
        """Claim ``token`` for a refused request; the record that was there first, if any."""
        ...

    def import_events(self, match_id: str, events: Sequence[StoredEvent]) -> int:
        """Write an exported match verbatim (versions, timestamps, hashes) into an empty stream.

        Raises :class:`ConcurrencyError` if the match already has events. Marks it unprojected.
        """
        ...

    def read(
        self, match_id: str, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        """Events with ``version > after``, oldest first, at most ``limit`` of them."""
        ...

    def version(self, match_id: str) -> int:
        """The version of the match's latest event; 0 for an unknown match."""
        ...

    def unprojected(self) -> Iterator[str]:
        """Ids of the matches that carry the "unprojected" mark."""
        ...

    def mark_projected(self, match_id: str, version: int) -> bool:
        """Clear the mark if it is at most ``version``; True if no mark remains.

        A mark set by a newer append survives (the call returns False), so an
        event appended while the projector was folding is never forgotten.
        """
        ...

    def match_ids(self) -> Iterator[str]:
        """Ids of every match that has at least one event."""
        ...
