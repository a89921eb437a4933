"""Every event's fields are the ones recorded for its schema version, or the test says what to do.

The proof that it would notice: a copy of an event with one field renamed, and no version
step, fails the same check with the instruction to add one.
"""
from __future__ import annotations

import dataclasses
import json
from typing import ClassVar

import pytest

from shared.codec.event_versions import UPCASTERS
from shared.codec.fingerprint import drift, fingerprint, fingerprints
from shared.codec.upcasting import Upcasters
from shared.rules import EVENT_TYPES, Seat
from tests.golden.fingerprints import main, recorded, with_new_versions

pytestmark = pytest.mark.unit


def test_every_event_type_has_the_fields_recorded_for_its_current_version():
    problems = drift(recorded(), EVENT_TYPES, UPCASTERS.versions())
    assert not problems, "\n".join(problems)


def test_schema_1_describes_what_is_written_today_defaults_included():
    created = recorded()["match_created"]["1"]
    assert created["private"] == {"type": "bool", "required": False, "default": False}
    assert created["capped"] == {"type": "bool", "required": False, "default": False}
    assert created["rules"]["fields"]["target"] == {"type": "int", "required": False, "default": 12}
    assert recorded()["match_won"]["1"]["reason"]["default"] == "score"


@dataclasses.dataclass(frozen=True)
class PlayedWithARenamedField:
    """card_played as it would be if ``card`` were renamed ``played``."""

    seat: Seat
    played: str
    type: ClassVar[str] = "card_played"


def _with(kind: type) -> dict[str, type]:
    return {**EVENT_TYPES, kind.type: kind}


def test_a_field_renamed_without_a_version_step_fails_and_says_what_to_do():
    problems = drift(recorded(), _with(PlayedWithARenamedField), UPCASTERS.versions())
    assert problems == [
        "card_played's fields changed (gone: card; new: played) but its schema version is still 1: "
        "add schema version 2 for card_played and an upcaster from 1 (a step in shared/codec/event_versions.py "
        "turning version 1's data into the new fields), then run `python -m tests.golden.fingerprints` to record "
        "the fingerprint"]


def test_a_field_given_a_default_or_a_new_type_is_a_change_too():
    defaulted = dataclasses.make_dataclass(
        "Defaulted", [("seat", Seat), ("card", str, dataclasses.field(default="1E"))], frozen=True)
    defaulted.type = "card_played"
    retyped = dataclasses.make_dataclass("Retyped", [("seat", Seat), ("card", int)], frozen=True)
    retyped.type = "card_played"
    for kind in (defaulted, retyped):
        [problem] = drift(recorded(), _with(kind), UPCASTERS.versions())
        assert problem.startswith("card_played's fields changed (changed: card) but its schema version is still 1")


def test_with_the_step_and_the_new_version_recorded_the_rename_passes():
    chain = _today()
    chain.register("card_played", 1, lambda data: {**data, "played": data["card"]})
    kinds = _with(PlayedWithARenamedField)
    [unrecorded] = drift(recorded(), kinds, chain.versions())
    assert unrecorded.startswith("card_played version 2 has no recorded fingerprint: run `python -m")

    merged = with_new_versions(recorded(), fingerprints(kinds, chain.versions()))

    assert drift(merged, kinds, chain.versions()) == []
    assert merged["card_played"]["1"] == recorded()["card_played"]["1"]  # version 1 stays as it was
    assert merged["card_played"]["2"] == fingerprint(PlayedWithARenamedField)


def _today() -> Upcasters:
    """A chain with today's versions (its steps stand in: only the versions count here)."""
    chain = Upcasters(EVENT_TYPES)
    for event_type, version in UPCASTERS.versions().items():
        for from_version in range(1, version):
            chain.register(event_type, from_version, dict)
    return chain


def test_a_step_removed_after_its_version_was_recorded_is_noticed():
    chain = Upcasters(EVENT_TYPES)
    chain.register("folded", 1, dict)
    two = with_new_versions(recorded(), fingerprints(EVENT_TYPES, chain.versions()))
    problems = drift(two, EVENT_TYPES, UPCASTERS.versions())
    assert problems == ["folded has recorded versions [2] beyond its current 1: a step was removed from "
                        "shared/codec/event_versions.py, and streams of those versions exist"]


def test_the_record_command_adds_new_versions_and_never_changes_a_recorded_one(tmp_path, capsys):
    path = tmp_path / "fingerprints.json"
    assert main(path) == 0  # from nothing: every type's current version
    assert recorded(path) == {kind: {str(version): recorded()[kind][str(version)]}
                              for kind, version in UPCASTERS.versions().items()}

    changed = recorded(path)
    changed["card_played"]["1"]["card"]["type"] = "int"  # as if card_played's field had been recorded otherwise
    path.write_text(json.dumps(changed))

    assert main(path) == 1
    assert "card_played's fields changed (changed: card) but its schema version is still 1" in capsys.readouterr().err
    assert recorded(path) == changed  # nothing written
