"""The projector's marks: which matches have events their read models do not show yet.

Every append sets its match's mark in the same atomic step as the events, so no event
can exist unmarked; the projector clears the mark once it has folded that far. The
catch-up job an append asks for is the normal path; sweeping the marks is the backstop.
The same scripts keep an index of the marked matches, so counting them reads no keyspace.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol, runtime_checkable

from shared.eventstore.port import EventStore


@runtime_checkable
class ProjectionMarks(Protocol):
    """The "unprojected" marks an event store keeps per match."""

    def unprojected(self) -> Iterator[str]:
        """Ids of the matches that carry the "unprojected" mark."""
        ...

    def unprojected_count(self) -> int:
        """How many matches carry the mark, counted without reading every key (``/health``)."""
        ...

    def unprojected_listed(self) -> Iterator[str]:
        """The marked matches as the store's index lists them (what ``unprojected_count`` counts)."""
        ...

    def mark_projected(self, match_id: str, version: int) -> bool:
        """Clear the mark if it is at most ``version``; True if no mark remains.

        A mark set by a newer append survives (the call returns False), so an
        event appended while the projector was folding is never forgotten.
        """
        ...


@runtime_checkable
class MarkedEventStore(EventStore, ProjectionMarks, Protocol):
    """An event store with its marks: what the projector and the health check read."""
