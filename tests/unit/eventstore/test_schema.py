"""The stored-event envelope as it crosses the edges."""

from __future__ import annotations

import pytest
from marshmallow import ValidationError

from shared.eventstore.model import StoredEvent
from shared.eventstore.schema import event_from_json, event_to_json, iso_from_ms

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
