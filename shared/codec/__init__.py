"""Engine events <-> stored events: the single (de)serialiser between the rules engine and the store.

Each event type has one marshmallow schema built from its fields (``schemas``) and a fast
plain-Python reader and writer that load exactly what the schema loads (``fast``). Each
type carries a schema version so old streams stay readable when an event's shape changes
(add an upcaster keyed by (type, version) here when that happens).
"""
from __future__ import annotations

from typing import Any

from marshmallow import ValidationError

from shared.codec.event_schemas import schema_for
from shared.codec.fast import FAST_ERRORS, reader, writer
from shared.eventstore.port import NewEvent, StoredEvent
from shared.rules import EVENT_TYPES, Event

__all__ = ["SCHEMA_VERSION", "UnknownEventError", "data_of", "decode", "encode", "schema_for"]

SCHEMA_VERSION = 1


class UnknownEventError(ValueError):
    """A stored event this code cannot read (unknown type, newer schema, or corrupt data)."""


def encode(event: Event) -> NewEvent:
    """An engine event ready to append."""
    return NewEvent(event.type, data_of(event), SCHEMA_VERSION)


def decode(stored: StoredEvent) -> Event:
    """The engine event a stored event records; UnknownEventError if it cannot be read."""
    kind = EVENT_TYPES.get(stored.type)
    if kind is None:
        raise UnknownEventError(f"version {stored.version}: unknown event type {stored.type!r}")
    if stored.schema_version != SCHEMA_VERSION:
        raise UnknownEventError(f"version {stored.version}: {stored.type} schema {stored.schema_version} is unknown")
    try:
        return reader(kind)(stored.data)
    except FAST_ERRORS:
        pass  # the schema decides, and says why
    try:
        return schema_for(kind).load(stored.data)
    except ValidationError as error:
        raise UnknownEventError(f"version {stored.version}: bad {stored.type} data: {error.messages}") from None


def data_of(event: Event) -> dict[str, Any]:
    """The JSON-ready data of an engine event (as it is stored).

    An event as the engine shows it to an audience has None for each hidden card; the
    schema writes those as null (the fast writer leaves them to it).
    """
    try:
        return writer(type(event))(event)
    except FAST_ERRORS:
        return schema_for(type(event)).dump(event)
