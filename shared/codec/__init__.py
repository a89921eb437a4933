"""Engine events <-> stored events: the single (de)serialiser between the rules engine and the store.

Each event type has one marshmallow schema built from its fields (``schemas``) and a fast
plain-Python reader and writer that load exactly what the schema loads (``fast``). Each
type has a schema version, written with every event: an event recorded under an older
version is read through its type's upcaster chain (``event_versions``, ``upcasting``), and
one recorded by newer code than this is refused.
"""
from __future__ import annotations

from typing import Any

from marshmallow import ValidationError

from shared.codec.event_schemas import schema_for
from shared.codec.event_versions import UPCASTERS
from shared.codec.fast import FAST_ERRORS, reader, writer
from shared.eventstore.port import NewEvent, StoredEvent
from shared.rules import EVENT_TYPES, Event

__all__ = ["UnknownEventError", "current_version", "data_of", "decode", "encode", "schema_for"]


class UnknownEventError(ValueError):
    """A stored event this code cannot read (unknown type, newer schema, or corrupt data)."""


def encode(event: Event) -> NewEvent:
    """An engine event ready to append, under its type's current schema version."""
    return NewEvent(event.type, data_of(event), UPCASTERS.current(event.type))


def current_version(event_type: str) -> int:
    """The schema version ``event_type`` is written with today (1 + the steps of its chain)."""
    return UPCASTERS.current(event_type)


def decode(stored: StoredEvent) -> Event:
    """The engine event a stored event records; UnknownEventError if it cannot be read."""
    kind = EVENT_TYPES.get(stored.type)
    if kind is None:
        raise UnknownEventError(f"version {stored.version}: unknown event type {stored.type!r}")
    data = stored.data if stored.schema_version == UPCASTERS.current(stored.type) else _upcast(stored)
    try:
        return reader(kind)(data)
    except FAST_ERRORS:
        pass  # the schema decides, and says why
    try:
        return schema_for(kind).load(data)
    except ValidationError as error:
        raise UnknownEventError(f"version {stored.version}: bad {stored.type} data: {error.messages}") from None


def _upcast(stored: StoredEvent) -> Any:
    """An older version's data as the current version stores it; a version this code does not know is refused."""
    current = UPCASTERS.current(stored.type)
    if not 1 <= stored.schema_version < current:
        raise UnknownEventError(f"version {stored.version}: {stored.type} schema {stored.schema_version} is "
                                f"unknown (this code reads 1 to {current}: written by newer code?)")
    if not isinstance(stored.data, dict):
        raise UnknownEventError(f"version {stored.version}: bad {stored.type} data: not an object")
    try:
        return UPCASTERS.upcast(stored.type, stored.schema_version, stored.data)
    except (KeyError, TypeError, ValueError) as error:
        raise UnknownEventError(f"version {stored.version}: {stored.type} schema {stored.schema_version} "
                                f"cannot be upcast: {error!r}") from None


def data_of(event: Event) -> dict[str, Any]:
    """The JSON-ready data of an engine event (as it is stored).

    An event as the engine shows it to an audience has None for each hidden card; the
    schema writes those as null (the fast writer leaves them to it).
    """
    try:
        return writer(type(event))(event)
    except FAST_ERRORS:
        return schema_for(type(event)).dump(event)
