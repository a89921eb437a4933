"""Engine events survive the trip through the marshmallow schemas and the store's JSON."""
import random

import pytest

from shared.codec import UnknownEventError, decode, encode, schema_for
from shared.eventstore import StoredEvent
from shared.eventstore.port import decode_data, encode_data
from shared.rules import EVENT_TYPES, CancelReason, Seat, WinReason
from shared.rules.events import MatchCancelled, MatchWon, RoundDealt
from shared.rules.playthrough import play_random_match

CANCELLED = [MatchCancelled(CancelReason.CREATOR), MatchCancelled(CancelReason.EXPIRED)]


def _random_events(seed: int) -> list:
    """A random match's events; with odd seeds seats let the clock run out and resign now and then."""
    options = {"timeout_rate": 0.05, "resign_weight": 0.005} if seed % 2 else {}
    return play_random_match(random.Random(seed), **options)[1]


def _stored(new, version=1) -> StoredEvent:
    return StoredEvent("m", version, new.type, new.schema_version, 0, decode_data(encode_data(new.data)))


def test_every_event_of_random_matches_round_trips():
    seen = set()
    for seed in range(30):
        for version, event in enumerate(_random_events(seed) + CANCELLED, 1):
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


def test_the_fast_paths_store_and_load_exactly_what_the_schemas_do():
    for seed in range(30):
        for event in _random_events(seed) + CANCELLED:
            dumped = schema_for(type(event)).dump(event)
            assert list(encode(event).data.items()) == list(dumped.items())  # same keys, same order
            stored = _stored(encode(event))
            assert decode(stored) == schema_for(type(event)).load(stored.data)


@pytest.mark.parametrize(("type_", "data", "loaded"), [
    ("match_won", {"seat": "A", "scores": {"A": 12, "B": 3}}, MatchWon(Seat.A, (12, 3))),  # a default left out
    ("round_dealt", {"round": 1, "dealer": "A", "hands": {"A": ["7H"], "B": ("8H",)}, "stock": []},
     RoundDealt(1, Seat.A, (("7H",), ("8H",)), ())),  # a tuple the fast reader leaves to the schema
])
def test_data_the_fast_reader_is_unsure_of_is_loaded_by_the_schema(type_, data, loaded):
    assert decode(StoredEvent("m", 1, type_, 1, 0, data)) == loaded


def test_a_match_won_recorded_before_win_reasons_reads_as_won_on_score():
    data = {"seat": "B", "scores": {"A": 4, "B": 12}, "seed": "00" * 32}
    assert decode(StoredEvent("m", 9, "match_won", 1, 0, data)).reason is WinReason.SCORE
    resigned = encode(MatchWon(Seat.B, (4, 7), None, WinReason.RESIGNED))
    assert resigned.data["reason"] == "resigned" and decode(_stored(resigned)).reason is WinReason.RESIGNED


@pytest.mark.parametrize(("type_", "data"), [
    ("card_played", {"seat": "A", "card": "7H", "extra": 1}),  # unknown fields are refused
    ("trick_won", {"trick": True, "seat": "A"}),  # a bool is not an int
    ("round_won", {"round": 1, "seat": "A", "points": 1, "reason": "tricks", "scores": {"A": 1, "C": 0}}),
])
def test_the_fast_reader_refuses_nothing_the_schema_accepts_and_accepts_nothing_it_refuses(type_, data):
    with pytest.raises(UnknownEventError, match="version 5"):
        decode(StoredEvent("m", 5, type_, 1, 0, data))
