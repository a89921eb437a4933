"""Plain-Python readers and writers of stored event data, one per event type.

The schemas (:mod:`shared.codec.event_schemas`) define the stored shape; these are equivalents
compiled per event type from the same type table, ~10x faster (decoding is most of what
replaying a stream costs). They are stricter than the schemas: any value they are not
sure of raises ``Doubt``, and the schema itself then loads (or dumps) the event and words
the error. So what they accept is what the schema accepts, loaded the same way.
"""
from __future__ import annotations

import typing
from collections.abc import Callable
from dataclasses import MISSING, fields
from functools import cache
from typing import Any

from shared.rules import CancelReason, Event, RoundEnd, Rules, Seat, WinReason
from shared.rules.events import Hands


class Doubt(Exception):
    """A value the fast path leaves to the schema."""


FAST_ERRORS = (Doubt, KeyError, TypeError, ValueError, AttributeError)
_SEAT_BY_VALUE = {seat.value: seat for seat in Seat}
_END_BY_VALUE = {end.value: end for end in RoundEnd}
_WIN_BY_VALUE = {reason.value: reason for reason in WinReason}
_CANCEL_BY_VALUE = {reason.value: reason for reason in CancelReason}


def _only(*kinds: type) -> Callable[[Any], Any]:
    def read(value: Any) -> Any:
        if type(value) not in kinds:
            raise Doubt
        return value
    return read


def _read_cards(value: Any) -> tuple[str, ...]:
    if type(value) is not list or any(type(card) is not str for card in value):
        raise Doubt
    return tuple(value)


def _read_decks(value: Any) -> tuple[tuple[str, ...], ...]:
    if type(value) is not list:
        raise Doubt
    return tuple(_read_cards(deck) for deck in value)


def _read_pair(inner: Callable[[Any], Any]) -> Callable[[Any], tuple[Any, Any]]:
    def read(value: Any) -> tuple[Any, Any]:
        if type(value) is not dict or len(value) != 2:
            raise Doubt
        return inner(value["A"]), inner(value["B"])
    return read


def _read_rules(value: Any) -> Rules:
    if type(value) is not dict:
        raise Doubt
    return Rules.from_mapping(value)


_READ_INT = _only(int)  # exactly int: a bool is left to the schema
_READ: dict[Any, Callable[[Any], Any]] = {
    str: _only(str),
    str | None: _only(str, type(None)),
    int: _READ_INT,
    bool: _only(bool),
    Seat: _SEAT_BY_VALUE.__getitem__,
    RoundEnd: _END_BY_VALUE.__getitem__,
    WinReason: _WIN_BY_VALUE.__getitem__,
    CancelReason: _CANCEL_BY_VALUE.__getitem__,
    Rules: _read_rules,
    tuple[int, int]: _read_pair(_READ_INT),
    Hands: _read_pair(_read_cards),
    tuple[str, ...]: _read_cards,
    tuple[tuple[str, ...], ...]: _read_decks,
}


def _write_cards(value: Any) -> list[str | None]:
    """Cards as stored; None (a card hidden from an audience) is written null, as the schema does."""
    if type(value) not in (tuple, list):
        raise Doubt
    for card in value:  # a plain loop: any() over a generator costs a third more
        if type(card) is not str and card is not None:
            raise Doubt
    return list(value)


def _write_decks(value: Any) -> list[list[str]]:
    if type(value) not in (tuple, list):
        raise Doubt
    return [_write_cards(deck) for deck in value]


def _write_rules(value: Any) -> dict[str, Any]:
    if type(value) is not Rules:
        raise Doubt
    return value.to_dict()


def _write_pair(inner: Callable[[Any], Any]) -> Callable[[Any], dict[str, Any]]:
    def write(value: Any) -> dict[str, Any]:
        if type(value) not in (tuple, list) or len(value) != 2:
            raise Doubt
        return {"A": inner(value[0]), "B": inner(value[1])}
    return write


def _write_enum(kind: type) -> Callable[[Any], str]:
    def write(value: Any) -> str:
        if type(value) is not kind:
            raise Doubt
        return value.value
    return write


_WRITE: dict[Any, Callable[[Any], Any]] = {
    **{hint: _READ[hint] for hint in (str, str | None, int, bool)},  # these are stored as they are
    Seat: _write_enum(Seat),
    RoundEnd: _write_enum(RoundEnd),
    WinReason: _write_enum(WinReason),
    CancelReason: _write_enum(CancelReason),
    Rules: _write_rules,
    tuple[int, int]: _write_pair(_READ_INT),
    Hands: _write_pair(_write_cards),
    tuple[str, ...]: _write_cards,
    tuple[tuple[str, ...], ...]: _write_decks,
}


@cache
def reader(kind: type[Event]) -> Callable[[Any], Event]:
    """Stored data -> event, for data the schema would load to the same event."""
    hints = typing.get_type_hints(kind)
    spec = [(f.name, _READ[hints[f.name]], f.default is MISSING) for f in fields(kind)]
    names = frozenset(name for name, _, _ in spec)

    def read(data: Any) -> Event:
        if type(data) is not dict or not data.keys() <= names:
            raise Doubt  # unknown fields: the schema refuses them
        loaded = {}
        for name, read_field, required in spec:
            if name in data:
                loaded[name] = read_field(data[name])
            elif required:
                raise Doubt
        return kind(**loaded)
    return read


@cache
def writer(kind: type[Event]) -> Callable[[Event], dict[str, Any]]:
    """Event -> stored data, exactly as the schema dumps it (same keys, same order)."""
    hints = typing.get_type_hints(kind)
    spec = [(f.name, _WRITE[hints[f.name]]) for f in fields(kind)]
    return lambda event: {name: write(getattr(event, name)) for name, write in spec}


