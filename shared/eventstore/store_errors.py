"""The event store's errors: the same in every implementation."""

from __future__ import annotations

from shared.eventstore.append_tokens import TokenRecord


class EventStoreError(Exception):
    """Base class of the event store's errors."""


class ConcurrencyError(EventStoreError):
    """The stream moved on since the writer read it: reload, decide again, retry."""

    def __init__(self, expected: int, actual: int, match_id: str | None = None) -> None:
        self.expected = expected
        self.actual = actual
        self.match_id = match_id
        where = f" of match {match_id!r}" if match_id else ""
        super().__init__(f"expected version {expected}{where}, but it is at {actual}")


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


class NotDurableError(EventStoreError):
    """An append the master recorded but no replica confirmed in time (``APPEND_ACK=replica``).

    The events may survive or not (a failover now loses them): a retry with the same token
    answers what was recorded, or appends afresh. ``appended`` is what the master recorded
    (None for a replayed token), so the caller may still ask for its catch-up.
    """

    def __init__(self, match_id: str, appended: object | None = None) -> None:
        self.match_id, self.appended = match_id, appended
        super().__init__(f"match {match_id!r}: no replica confirmed the append in time")
