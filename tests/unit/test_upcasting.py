"""The upcaster chain: old schema versions read as today's events, newer ones refused, gaps refused at import."""
from __future__ import annotations

import importlib.util
import sys

import pytest

import shared.codec
from shared.codec import UnknownEventError, current_version, decode, encode
from shared.codec.upcasting import BrokenChainError, Upcasters
from shared.eventstore import StoredEvent
from shared.rules import EVENT_TYPES, Rules, Seat
from shared.rules.events import MatchCreated, PlayerJoined

JOINED = PlayerJoined(Seat.B, "bob-id")
# player_joined as three imagined versions: "player" (1), then "id" (2), then today's "player_id" (3).
AS_RECORDED = {
    1: {"seat": "B", "player": "bob-id"},
    2: {"seat": "B", "id": "bob-id"},
    3: {"seat": "B", "player_id": "bob-id"},
}


def _renamed(old: str, new: str):
    def step(data: dict) -> dict:
        data[new] = data.pop(old)
        return data
    return step


@pytest.fixture
def three_versions(monkeypatch) -> Upcasters:
    """The codec with player_joined at version 3: two steps, registered as a module would."""
    chain = Upcasters(EVENT_TYPES)
    chain.register("player_joined", 1, _renamed("player", "id"))
    chain.upcaster("player_joined", from_version=2)(_renamed("id", "player_id"))
    monkeypatch.setattr(shared.codec, "UPCASTERS", chain)
    return chain


def _stored(schema_version: int, data: dict, type_: str = "player_joined") -> StoredEvent:
    return StoredEvent("m", 2, type_, schema_version, 0, data)


def test_every_version_of_the_chain_reads_as_todays_event(three_versions):
    for version, data in AS_RECORDED.items():
        assert decode(_stored(version, data)) == JOINED


def test_the_steps_run_in_order_and_leave_the_stored_data_as_recorded(three_versions):
    recorded = dict(AS_RECORDED[1])
    stored = _stored(1, recorded)
    assert three_versions.upcast("player_joined", 1, stored.data) == AS_RECORDED[3]
    assert stored.data == AS_RECORDED[1]  # the event (and so its hash) is never rewritten


def test_the_writer_writes_the_current_version_only(three_versions):
    written = encode(JOINED)
    assert (written.schema_version, written.data) == (3, AS_RECORDED[3])
    assert current_version("player_joined") == 3 and current_version("card_played") == 1


def test_a_version_newer_than_the_chain_is_refused_clearly(three_versions):
    with pytest.raises(UnknownEventError, match=r"version 2: player_joined schema 4 is unknown \(this code reads 1 to"):
        decode(_stored(4, AS_RECORDED[3]))
    with pytest.raises(UnknownEventError, match="schema 0 is unknown"):
        decode(_stored(0, AS_RECORDED[3]))


def test_data_a_step_cannot_read_is_refused_as_unreadable(three_versions):
    with pytest.raises(UnknownEventError, match="player_joined schema 1 cannot be upcast"):
        decode(_stored(1, {"seat": "B"}))  # no "player" to rename


def test_todays_codec_writes_schema_2_of_the_events_that_seat_players_1_of_the_others_and_refuses_newer():
    seating = {"match_created": 2, "player_joined": 2}
    assert {name: current_version(name) for name in EVENT_TYPES} == {**dict.fromkeys(EVENT_TYPES, 1), **seating}
    with pytest.raises(UnknownEventError, match="player_joined schema 3 is unknown"):
        decode(_stored(3, {"seat": "B", "player_id": "bob-id"}))
    with pytest.raises(UnknownEventError, match="card_played schema 2 is unknown"):
        decode(_stored(2, {"seat": "A", "card": "1E"}, "card_played"))


def test_a_step_that_does_not_continue_its_chain_is_refused():
    chain = Upcasters(EVENT_TYPES)
    with pytest.raises(BrokenChainError, match="a step from version 2, but its chain ends at version 1"):
        chain.register("match_won", 2, dict)
    chain.register("match_won", 1, dict)
    with pytest.raises(BrokenChainError, match="a step from version 1, but its chain ends at version 2"):
        chain.register("match_won", 1, dict)  # a second step from one version
    with pytest.raises(BrokenChainError, match="no event type"):
        chain.register("match_renamed", 1, dict)


def test_a_module_registering_a_gapped_chain_fails_to_import(tmp_path):
    module = tmp_path / "gapped_steps.py"
    module.write_text(
        "from shared.codec.upcasting import Upcasters\n"
        "from shared.rules import EVENT_TYPES\n"
        "UPCASTERS = Upcasters(EVENT_TYPES)\n"
        "UPCASTERS.register('round_won', 1, dict)\n"
        "UPCASTERS.register('round_won', 3, dict)  # the step from 2 is missing\n")
    spec = importlib.util.spec_from_file_location("gapped_steps", module)
    with pytest.raises(BrokenChainError, match="round_won: a step from version 3"):
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
    assert "gapped_steps" not in sys.modules


def test_schema_1_of_the_seating_events_reads_as_schema_2_by_id_only_unrated_and_with_no_bot_level():
    created = MatchCreated("m", "alice-id", Rules(), Seat.B, (0, 0), (), False, None, True, True)
    schema_1 = {name: value for name, value in encode(created).data.items() if name not in ("rated", "bot_level")}
    schema_1["creator_name"] = "alice"
    assert decode(StoredEvent("m", 1, "match_created", 1, 0, schema_1)) == created
    joined = {"seat": "B", "player_id": "bob-id", "player_name": "bob"}
    assert decode(StoredEvent("m", 2, "player_joined", 1, 0, joined)) == JOINED
    assert "player_name" in joined  # the stored data stays as recorded


def test_schema_2_records_no_name_and_the_new_fields():
    written = encode(MatchCreated("m", "alice-id", Rules(), Seat.B, (0, 0), (), False, bot_level="medium"))
    assert written.schema_version == 2 and "creator_name" not in written.data
    assert (written.data["rated"], written.data["bot_level"]) == (False, "medium")
    assert encode(JOINED).data == {"seat": "B", "player_id": "bob-id"}


def test_a_version_1_match_created_from_before_private_and_capped_reads_by_their_defaults():
    written = encode(MatchCreated("m", "alice-id", Rules(), Seat.B, (0, 0), (), False, None, True, True))
    later = ("private", "capped", "rated", "bot_level")
    older = {name: value for name, value in written.data.items() if name not in later}
    older["creator_name"] = "alice"
    created = decode(StoredEvent("m", 1, "match_created", 1, 0, older))
    assert (created.private, created.capped) == (False, False)  # public, and no round cap: what those matches were
