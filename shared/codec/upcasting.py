"""The upcaster chain: how an event recorded under an older schema version is read today.

Each event type has a chain of steps, one pure function ``dict -> dict`` per (type, from
version), turning the stored data of version ``n`` into the data of version ``n + 1``.
A type's current version is where its chain ends (1 + its steps): writes always use it,
reads of an older version run every step from there on, in order. The stored event is
never rewritten: its data, its schema version and its hash stay as recorded, and only the
engine event read from it is today's.

A step must continue its type's chain: a step from version 3 registered before the step
from version 2, or a second step from one version, is refused at once
(:class:`BrokenChainError`), so a module registering a gapped chain fails to import.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

Data = dict[str, Any]
Step = Callable[[Data], Data]


class BrokenChainError(ValueError):
    """A step that does not continue its event type's chain (a gap, a repeat or an unknown type)."""


class Upcasters:
    """The steps of every event type, each chain gapless from version 1."""

    def __init__(self, event_types: Iterable[str]) -> None:
        self._steps: dict[str, list[Step]] = {name: [] for name in event_types}
        self._current = dict.fromkeys(self._steps, 1)  # read once per event decoded: kept, not counted

    def register(self, event_type: str, from_version: int, step: Step) -> Step:
        """Add the step reading ``event_type``'s version ``from_version`` as ``from_version + 1``."""
        steps = self._steps.get(event_type)
        if steps is None:
            raise BrokenChainError(f"an upcaster for {event_type!r}, which is no event type")
        current = len(steps) + 1
        if from_version != current:
            raise BrokenChainError(
                f"{event_type}: a step from version {from_version}, but its chain ends at version {current}: "
                f"register the step from {current} first (every version needs its step, in order)")
        steps.append(step)
        self._current[event_type] = current + 1
        return step

    def current(self, event_type: str) -> int:
        """The version ``event_type`` is written with today (1: a type no step was registered for)."""
        return self._current.get(event_type, 1)

    def versions(self) -> Mapping[str, int]:
        """Every event type's current version."""
        return dict(self._current)

    def upcast(self, event_type: str, from_version: int, data: Data) -> Data:
        """``data`` recorded under ``from_version`` (1..current), as the current version stores it."""
        for step in self._steps.get(event_type, ())[from_version - 1:]:
            data = step(dict(data))  # a copy: the stored event's own data stays as recorded
        return data

    def upcaster(self, event_type: str, from_version: int) -> Callable[[Step], Step]:
        """The decorator form of :meth:`register`."""
        return lambda step: self.register(event_type, from_version, step)
