"""The event store port: the values it takes and returns, and its contract.

One stream per match with a gapless version: the first event of a match has
version 1, the n-th has version n. Writers append with the version they read
(optimistic concurrency); exactly one of two racers wins.

The port is only what every writer and reader of streams needs. A store also keeps
the projector's marks (:mod:`~shared.eventstore.marks`) and the idempotency tokens
(:mod:`~shared.eventstore.append_tokens`): each is its own small protocol, so a caller
names the part it uses.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import orjson

from shared.eventstore.append_tokens import AppendToken

if TYPE_CHECKING:
    from shared.eventstore.alongside import Alongside

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
    hash: str = ""  # this event's link in the match's hash chain (see chain.chain_hash)


@dataclass(frozen=True)
class Appended:
    """What an append recorded, as a read would return it, and whether to ask for a catch-up."""

    version: int
    events: list[StoredEvent]
    ask_catch_up: bool  # False: a catch-up is queued that will fold these events too
    read_alongside: tuple[Any, ...] = ()  # the replies of the reads sent in the append's round trip, if any


@runtime_checkable
class EventStore(Protocol):
    """What every writer and reader of match streams needs from an event store."""

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

    def append_events(
        self, match_id: str, events: Sequence[NewEvent], expected_version: int,
        token: AppendToken | None = None, alongside: Alongside | None = None,
    ) -> Appended:
        """``append``, returning the events as a read would (without reading them back); with
        ``alongside`` (a store on Redis only), the caller's writes before it and reads after it
        in its round trip (their replies in ``read_alongside``)."""
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

    def match_ids(self) -> Iterator[str]:
        """Ids of every match that has at least one event."""
        ...


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


# Both stores keep event data as these JSON bytes, so they accept and return
# exactly the same values (no tuples or non-string keys sneaking through memory).
def encode_data(data: Mapping[str, Any]) -> bytes:
    """Serialise event data to JSON bytes (orjson: fast, UTF-8, strict keys)."""
    return orjson.dumps(dict(data))


def decode_data(raw: bytes | str) -> dict[str, Any]:
    """Parse event data written by :func:`encode_data`."""
    return orjson.loads(raw)
