"""What an audience may see of recorded events."""
import orjson

from shared import redaction
from shared.codec import encode
from shared.eventstore import StoredEvent
from shared.eventstore.port import decode_data, encode_data
from shared.eventstore.schema import StoredEventSchema, event_to_json
from shared.redaction import public_events
from tests.projector_support import random_match

DEALT = ("round_dealt", {"round": 1, "dealer": "B", "hands": {"A": ["7H", "8S", "9C"], "B": ["AD", "KC", "10H"]},
                         "stock": ["QS", "JD"] + ["9H"] * 24})
PLAYED = ("card_played", {"seat": "B", "card": "KC"})
NEXT_ROUND = ("round_dealt", {"round": 2, "dealer": "A", "hands": {"A": ["KC", "8D", "9D"], "B": ["AH", "QC", "JC"]},
                              "stock": ["QD"] * 26})


def _shown(events, audience):
    """The data of (type, data) events, recorded in this order, as ``audience`` is shown them."""
    stored = [StoredEvent("m", version, type_, 1, 0, data) for version, (type_, data) in enumerate(events, 1)]
    return [rendered["data"] for rendered in public_events(stored, audience)]


def test_a_seat_sees_its_own_dealt_cards_only_and_never_the_stock():
    shown = _shown([DEALT], "A")[0]
    assert shown["hands"] == {"A": ["7H", "8S", "9C"], "B": [None, None, None]}
    assert set(shown["stock"]) == {None}
    assert DEALT[1]["hands"]["B"] == ["AD", "KC", "10H"]  # the stored data is untouched


def test_a_card_played_to_the_table_shows_in_its_round_only():
    events = [DEALT, PLAYED, NEXT_ROUND]
    first, _, second = _shown(events, None)
    assert first["hands"]["B"] == [None, "KC", None]
    assert second["hands"]["A"] == [None, None, None]  # KC again, but unplayed in round 2


def test_a_spectator_sees_no_unplayed_card():
    shown = _shown([DEALT], None)[0]
    assert shown["hands"] == {"A": [None] * 3, "B": [None] * 3}


def test_redealt_hands_and_fixture_decks_are_hidden():
    redeal = ("redeal_accepted", {"seat": "B", "hands": DEALT[1]["hands"]})
    created = ("match_created", {"match_id": "m", "creator_id": "p1", "creator_name": "alice", "rules": {},
                                 "first_dealer": "A", "start_scores": {"A": 0, "B": 0}, "decks": [["7H", "KC"], ["8H"]],
                                 "custom": True})
    events = [created, DEALT, redeal, PLAYED]
    shown = _shown(events, "B")
    assert shown[0]["decks"] == [[None, "KC"], [None]]
    assert shown[2]["hands"]["A"] == [None] * 3 and shown[2]["hands"]["B"] == ["AD", "KC", "10H"]


def test_everything_shows_once_the_match_is_finished():
    events = [DEALT, ("match_won", {"seat": "A", "scores": {"A": 12, "B": 0}})]
    assert _shown(events, None)[0] == DEALT[1]


def test_other_events_pass_unchanged():
    assert _shown([DEALT, PLAYED], "A")[1] == PLAYED[1]


def test_public_events_publish_chain_links_only_once_the_match_is_finished():
    stored = [StoredEvent("m", 1, DEALT[0], 1, 0, DEALT[1], "a" * 64)]
    playing = public_events(stored, "A")[0]
    assert playing["hash"] is None and playing["data"]["hands"]["B"] == [None] * 3
    won = StoredEvent("m", 2, "match_won", 1, 0, {"seat": "A", "scores": {"A": 12, "B": 0}}, "b" * 64)
    finished = public_events(stored + [won], None)
    assert [e["hash"] for e in finished] == ["a" * 64, "b" * 64]


def _stored_match(seed: int) -> list[StoredEvent]:
    events = [encode(event) for event in random_match(seed)]
    return [StoredEvent("m", version, new.type, new.schema_version, 1_700_000_000_000 + 997 * version,
                        decode_data(encode_data(new.data)), f"{version:064x}") for version, new in enumerate(events, 1)]


def _rendered_by(render, monkeypatch, stored, audience, window) -> bytes:
    monkeypatch.setattr(redaction, "event_to_json", render)
    return orjson.dumps(public_events(stored[window], audience, known=stored))


def test_public_events_are_the_same_json_as_the_marshmallow_envelope_gives(monkeypatch):
    """The envelope's fast path changes nothing a client sees, for any audience, event or moment."""
    schema = StoredEventSchema()
    for seed in range(5):
        stored = _stored_match(seed)
        for end in (3, len(stored) // 2, len(stored) - 1, len(stored)):  # in play, and finished
            for audience in ("A", "B", None):
                for window in (slice(0, end), slice(end - 3, end)):  # a history page, an action's events
                    fast = _rendered_by(event_to_json, monkeypatch, stored[:end], audience, window)
                    assert fast == _rendered_by(schema.dump, monkeypatch, stored[:end], audience, window)
