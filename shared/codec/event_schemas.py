"""The marshmallow schema of each event type: the stored shape, derived from the event's fields.

Per-seat pairs (hands, scores) are written ``{"A": ..., "B": ...}`` so a stored event
reads on its own.
"""
from __future__ import annotations

import typing
from collections.abc import Callable
from dataclasses import MISSING, fields
from functools import cache
from typing import Any

from marshmallow import Schema, ValidationError, post_load
from marshmallow import fields as mf

from shared.rules import CancelReason, Event, RoundEnd, Rules, Seat, WinReason
from shared.rules.events import Hands


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
    WinReason: lambda: mf.Enum(WinReason, by_value=True),
    CancelReason: lambda: mf.Enum(CancelReason, by_value=True),
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


