"""The stored-event envelope as it crosses the edges."""

from __future__ import annotations

import random
from collections import OrderedDict
from dataclasses import replace

import orjson
import pytest
from marshmallow import ValidationError

from shared.codec import encode
from shared.eventstore import schema
from shared.eventstore.port import StoredEvent, decode_data, encode_data
from shared.eventstore.schema import StoredEventSchema, event_from_json, event_to_json, iso_from_ms
from shared.rules import EVENT_TYPES, CancelReason, Seat
from shared.rules.events import MatchCancelled, RoundVoid, TurnTimedOut
from shared.rules.playthrough import play_random_match

EVENT = StoredEvent("m1", 3, "CardPlayed", 1, 1_700_000_000_007, {"card": "7♦"}, "ab" * 32)


def test_an_event_renders_with_an_iso_utc_timestamp_to_the_millisecond() -> None:
    assert event_to_json(EVENT) == {
        "version": 3,
        "type": "CardPlayed",
        "schema_version": 1,
        "at": "2023-11-14T22:13:20.007Z",
        "data": {"card": "7♦"},
        "hash": "ab" * 32,
    }


def test_the_epoch_itself_renders_with_milliseconds() -> None:
    assert iso_from_ms(0) == "1970-01-01T00:00:00.000Z"


def test_an_envelope_loads_back_into_the_same_event() -> None:
    assert event_from_json("m1", event_to_json(EVENT)) == EVENT


def test_an_offset_timestamp_is_read_as_the_same_instant() -> None:
    payload = event_to_json(EVENT) | {"at": "2023-11-14T23:13:20.007+01:00"}
    assert event_from_json("m1", payload).at == EVENT.at


@pytest.mark.parametrize(
    "change",
    [
        {"version": 0},
        {"version": "3"},
        {"type": ""},
        {"at": "2023-11-14T22:13:20"},  # no timezone
        {"at": 1_700_000_000_007},
        {"data": [1]},
        {"extra": 1},
    ],
)
def test_a_malformed_envelope_is_refused(change: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        event_from_json("m1", event_to_json(EVENT) | change)


_FIRST_MS = -62_135_596_800_000  # 0001-01-01T00:00:00.000Z
_LAST_MS = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z


def _stored_matches() -> list[StoredEvent]:
    """Every event of random matches (and a void round, rare in random play, a timeout and a
    cancellation, which random play leaves out), as stored,
    at instants from year 1 to year 9999 (the epoch, a leap day, the last ms of a day...)."""
    rng = random.Random(7)
    instants = [0, -1, 1, 86_399_999, 951_782_400_000, _LAST_MS, _FIRST_MS, 1_700_000_000_007]
    events = [event for seed in range(30) for event in play_random_match(random.Random(seed))[1]]
    stored = []
    rare = [RoundVoid(3), TurnTimedOut(Seat.B, 1_700_000_060_000), MatchCancelled(CancelReason.EXPIRED)]
    for version, event in enumerate([*events, *rare], 1):
        new = encode(event)
        at = instants[version] if version < len(instants) else rng.randint(_FIRST_MS, _LAST_MS)
        data = decode_data(encode_data(new.data))
        stored.append(StoredEvent("m", version, new.type, 1, at, data, rng.choice(["", f"{version:064x}"])))
    return stored


def test_the_fast_path_renders_every_event_type_exactly_as_the_schema_dumps_it(monkeypatch) -> None:
    stored = _stored_matches()
    assert {event.type for event in stored} == set(EVENT_TYPES)
    reference = [StoredEventSchema().dump(event) for event in stored]
    monkeypatch.setattr(schema, "_SCHEMA", None)  # the schema is not consulted at all
    rendered = [event_to_json(event) for event in stored]
    assert [list(r.items()) for r in rendered] == [list(r.items()) for r in reference]  # same keys, same order
    assert orjson.dumps(rendered) == orjson.dumps(reference)


@pytest.mark.parametrize("change", [
    {"version": True},
    {"at": 1.5},
    {"data": {1: "one"}},
    {"data": OrderedDict(card="7H")},
    {"hash": None},
])
def test_values_the_fast_path_is_unsure_of_are_rendered_by_the_schema(change: dict[str, object]) -> None:
    odd = replace(EVENT, **change)
    assert list(event_to_json(odd).items()) == list(StoredEventSchema().dump(odd).items())
