"""Engine events <-> stored events: one marshmallow schema per event type, built from its fields.

The schemas are the single (de)serialisers between the pure rules engine and the event
store. Per-seat pairs (hands, scores) are written ``{"A": ..., "B": ...}`` so a stored event
reads on its own. Each type carries a schema version so old streams stay readable when an
event's shape changes (add an upcaster keyed by (type, version) here when that happens).
"""
from __future__ import annotations

import typing
from collections.abc import Callable
from dataclasses import MISSING, fields
from functools import cache
from typing import Any

from marshmallow import Schema, ValidationError, post_load
from marshmallow import fields as mf

from shared.eventstore.port import NewEvent, StoredEvent
from shared.rules import EVENT_TYPES, Event, RoundEnd, Rules, Seat
from shared.rules.events import Hands

SCHEMA_VERSION = 1


class UnknownEventError(ValueError):
    """A stored event this code cannot read (unknown type, newer schema, or corrupt data)."""


class _SeatPair(mf.Field):
    """A per-seat pair stored as ``{"A": a, "B": b}``; ``inner`` converts each side."""

    def __init__(self, inner: mf.Field, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.inner = inner

    def _serialize(self, value, attr, obj, **kwargs):
        return {"A": self.inner._serialize(value[0], attr, obj), "B": self.inner._serialize(value[1], attr, obj)}

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, dict) or set(value) != {"A", "B"}:
            raise ValidationError("expected an object with keys A and B")
        return (self.inner.deserialize(value["A"]), self.inner.deserialize(value["B"]))


class _Tuple(mf.List):
    def _deserialize(self, value, attr, data, **kwargs):
        return tuple(super()._deserialize(value, attr, data, **kwargs))


class _RulesField(mf.Field):
    def _serialize(self, value, attr, obj, **kwargs):
        return value.to_dict()

    def _deserialize(self, value, attr, data, **kwargs):
        try:
            return Rules.from_mapping(value)
        except (ValueError, TypeError) as error:
            raise ValidationError(str(error)) from None


def _cards() -> mf.Field:
    return _Tuple(mf.String())


_FIELD_FOR: dict[Any, Callable[[], mf.Field]] = {
    str: mf.String,
    str | None: lambda: mf.String(allow_none=True),
    int: lambda: mf.Integer(strict=True),
    bool: mf.Boolean,
    Seat: lambda: mf.Enum(Seat, by_value=True),
    RoundEnd: lambda: mf.Enum(RoundEnd, by_value=True),
    Rules: _RulesField,
    tuple[int, int]: lambda: _SeatPair(mf.Integer(strict=True)),
    Hands: lambda: _SeatPair(_cards()),
    tuple[str, ...]: _cards,
    tuple[tuple[str, ...], ...]: lambda: _Tuple(_cards()),
}


@cache
def schema_for(kind: type[Event]) -> Schema:
    """The marshmallow schema of one event type, derived from the dataclass's fields."""
    hints = typing.get_type_hints(kind)
    declared = {}
    for f in fields(kind):
        field = _FIELD_FOR[hints[f.name]]()
        # A field added later has a default: events recorded before it still load.
        field.required = f.default is MISSING
        declared[f.name] = field

    class EventSchema(Schema):
        @post_load
        def make(self, data: dict, **kwargs: Any) -> Event:
            return kind(**data)

    return EventSchema.from_dict(declared, name=f"{kind.__name__}Schema")()


# --- Fast paths -----------------------------------------------------------------------
# The schemas above define the stored shape; the readers and writers below are plain-Python
# equivalents compiled per event type from the same type table, ~10x faster (decoding is
# most of what replaying a stream costs). They are stricter than the schemas: any value
# they are not sure of raises _Doubt, and the schema itself then loads (or dumps) the event
# and words the error. So what they accept is what the schema accepts, loaded the same way.


class _Doubt(Exception):
    """A value the fast path leaves to the schema."""


_FAST_ERRORS = (_Doubt, KeyError, TypeError, ValueError, AttributeError)
_SEAT_BY_VALUE = {seat.value: seat for seat in Seat}
_END_BY_VALUE = {end.value: end for end in RoundEnd}


def _only(*kinds: type) -> Callable[[Any], Any]:
    def read(value: Any) -> Any:
        if type(value) not in kinds:
            raise _Doubt
        return value
    return read


def _read_cards(value: Any) -> tuple[str, ...]:
    if type(value) is not list or any(type(card) is not str for card in value):
        raise _Doubt
    return tuple(value)


def _read_decks(value: Any) -> tuple[tuple[str, ...], ...]:
    if type(value) is not list:
        raise _Doubt
    return tuple(_read_cards(deck) for deck in value)


def _read_pair(inner: Callable[[Any], Any]) -> Callable[[Any], tuple[Any, Any]]:
    def read(value: Any) -> tuple[Any, Any]:
        if type(value) is not dict or len(value) != 2:
            raise _Doubt
        return inner(value["A"]), inner(value["B"])
    return read


def _read_rules(value: Any) -> Rules:
    if type(value) is not dict:
        raise _Doubt
    return Rules.from_mapping(value)


_READ_INT = _only(int)  # exactly int: a bool is left to the schema
_READ: dict[Any, Callable[[Any], Any]] = {
    str: _only(str),
    str | None: _only(str, type(None)),
    int: _READ_INT,
    bool: _only(bool),
    Seat: _SEAT_BY_VALUE.__getitem__,
    RoundEnd: _END_BY_VALUE.__getitem__,
    Rules: _read_rules,
    tuple[int, int]: _read_pair(_READ_INT),
    Hands: _read_pair(_read_cards),
    tuple[str, ...]: _read_cards,
    tuple[tuple[str, ...], ...]: _read_decks,
}


def _write_cards(value: Any) -> list[str]:
    if type(value) not in (tuple, list) or any(type(card) is not str for card in value):
        raise _Doubt
    return list(value)


def _write_decks(value: Any) -> list[list[str]]:
    if type(value) not in (tuple, list):
        raise _Doubt
    return [_write_cards(deck) for deck in value]


def _write_rules(value: Any) -> dict[str, Any]:
    if type(value) is not Rules:
        raise _Doubt
    return value.to_dict()


def _write_pair(inner: Callable[[Any], Any]) -> Callable[[Any], dict[str, Any]]:
    def write(value: Any) -> dict[str, Any]:
        if type(value) not in (tuple, list) or len(value) != 2:
            raise _Doubt
        return {"A": inner(value[0]), "B": inner(value[1])}
    return write


def _write_enum(kind: type) -> Callable[[Any], str]:
    def write(value: Any) -> str:
        if type(value) is not kind:
            raise _Doubt
        return value.value
    return write


_WRITE: dict[Any, Callable[[Any], Any]] = {
    **{hint: _READ[hint] for hint in (str, str | None, int, bool)},  # these are stored as they are
    Seat: _write_enum(Seat),
    RoundEnd: _write_enum(RoundEnd),
    Rules: _write_rules,
    tuple[int, int]: _write_pair(_READ_INT),
    Hands: _write_pair(_write_cards),
    tuple[str, ...]: _write_cards,
    tuple[tuple[str, ...], ...]: _write_decks,
}


@cache
def _reader(kind: type[Event]) -> Callable[[Any], Event]:
    """Stored data -> event, for data the schema would load to the same event."""
    hints = typing.get_type_hints(kind)
    spec = [(f.name, _READ[hints[f.name]], f.default is MISSING) for f in fields(kind)]
    names = frozenset(name for name, _, _ in spec)

    def read(data: Any) -> Event:
        if type(data) is not dict or not data.keys() <= names:
            raise _Doubt  # unknown fields: the schema refuses them
        loaded = {}
        for name, read_field, required in spec:
            if name in data:
                loaded[name] = read_field(data[name])
            elif required:
                raise _Doubt
        return kind(**loaded)
    return read


@cache
def _writer(kind: type[Event]) -> Callable[[Event], dict[str, Any]]:
    """Event -> stored data, exactly as the schema dumps it (same keys, same order)."""
    hints = typing.get_type_hints(kind)
    spec = [(f.name, _WRITE[hints[f.name]]) for f in fields(kind)]
    return lambda event: {name: write(getattr(event, name)) for name, write in spec}


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
        return _reader(kind)(stored.data)
    except _FAST_ERRORS:
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
        return _writer(type(event))(event)
    except _FAST_ERRORS:
        return schema_for(type(event)).dump(event)
