"""Engine events survive the trip through the marshmallow schemas and the store's JSON."""
import random

import pytest

from shared.codec import UnknownEventError, decode, encode
from shared.eventstore import StoredEvent
from shared.eventstore.model import decode_data, encode_data
from shared.rules import EVENT_TYPES
from shared.rules.playthrough import play_random_match


def _stored(new, version=1) -> StoredEvent:
    return StoredEvent("m", version, new.type, new.schema_version, 0, decode_data(encode_data(new.data)))


def test_every_event_of_random_matches_round_trips():
    seen = set()
    for seed in range(30):
        _, events = play_random_match(random.Random(seed))
        for version, event in enumerate(events, 1):
            assert decode(_stored(encode(event), version)) == event
            seen.add(event.type)
    assert seen >= set(EVENT_TYPES) - {"round_void"}  # a void round is rare in random play


def test_per_seat_pairs_are_stored_by_seat_name():
    _, events = play_random_match(random.Random(1))
    dealt = encode(next(e for e in events if e.type == "round_dealt"))
    assert set(dealt.data["hands"]) == {"A", "B"} and len(dealt.data["stock"]) == 26


@pytest.mark.parametrize(("type_", "schema", "data"), [
    ("no_such_event", 1, {}),
    ("card_played", 99, {"seat": "A", "card": "7H"}),
    ("card_played", 1, {"seat": "C", "card": "7H"}),
    ("card_played", 1, {"seat": "A"}),
    ("round_won", 1, {"round": "one", "seat": "A", "points": 1, "reason": "tricks", "scores": {"A": 1, "B": 0}}),
])
def test_unreadable_events_raise_a_clear_error(type_, schema, data):
    with pytest.raises(UnknownEventError, match="version 5"):
        decode(StoredEvent("m", 5, type_, schema, 0, data))
