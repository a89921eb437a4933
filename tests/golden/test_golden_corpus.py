"""Every match ever recorded in the golden corpus still reads, audits and folds as it did.

Each ``tests/golden/schema-N/`` holds matches written under one set of event schema
versions, never edited since (their sha256 are in its manifest). Today's code imports
each export as ``truc import`` reads it, audits it, and folds it to the views, scores,
results and replays recorded beside it: equal on every field recorded (a view may have
gained fields since).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from services.cli.exports import read_export
from shared.audit import audit_events
from shared.codec.event_versions import UPCASTERS
from tests.golden.expectations import expectation, missing
from tests.golden.record import GOLDEN, MANIFEST, generations, record, sha256

pytestmark = pytest.mark.unit
GENERATIONS = generations()
EXPORTS = sorted(GOLDEN.glob("schema-*/*.jsonl"))


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def test_there_is_a_corpus_of_the_versions_written_today_and_of_every_generation_of_at_least_20_matches():
    assert 1 in GENERATIONS
    assert dict(UPCASTERS.versions()) in [manifest["versions"] for manifest in GENERATIONS.values()], (
        "today's code writes event versions no tests/golden/schema-N holds: run `python -m tests.golden.record`")
    for number in GENERATIONS:
        assert len(list((GOLDEN / f"schema-{number}").glob("*.jsonl"))) >= 20


@pytest.mark.parametrize("number", sorted(GENERATIONS))
def test_a_recorded_generation_is_never_edited(number: int):
    folder = GOLDEN / f"schema-{number}"
    files = GENERATIONS[number]["files"]
    assert sorted(path.name for path in folder.iterdir() if path.name != MANIFEST) == sorted(files)
    assert {name: sha256(folder / name) for name in files} == files


@pytest.mark.parametrize("path", EXPORTS, ids=_id)
def test_a_recorded_match_imports_audits_and_folds_as_recorded(path: Path):
    with path.open("rb") as lines:
        exported = read_export(lines)
    versions = GENERATIONS[int(path.parent.name.removeprefix("schema-"))]["versions"]
    assert {(e.type, e.schema_version) for e in exported.events} <= set(versions.items())

    report = audit_events(exported.match_id, exported.events)
    assert report.ok, report.failures

    recorded = json.loads(path.with_name(path.name.replace(".jsonl", ".expected.json")).read_text())
    today = expectation(exported.match_id, exported.events, [int(v) for v in recorded["replays"]], exported.names)
    assert missing(recorded, today) == []


def test_the_subset_comparison_ignores_added_fields_and_finds_changed_or_lost_ones():
    recorded = {"view": {"scores": {"A": 3}, "tricks": [{"winner": "A"}]}}
    assert missing(recorded, {"view": {"scores": {"A": 3, "B": 1}, "tricks": [{"winner": "A", "new": 1}]}}) == []
    assert missing(recorded, {"view": {"scores": {"A": 4}, "tricks": []}}) == [
        "/view/scores/A: 3 != 4", "/view/tricks: expected 1 items, got []"]
    assert missing({"won": True}, {"won": 1}) == ["/won: True != 1"]
    assert missing({"seat": "A"}, {}) == ["/seat: missing"]


def test_the_recorder_writes_a_new_generation_in_one_command_and_never_repeats_one(tmp_path: Path):
    folder = record(tmp_path)

    assert folder.name == "schema-1"
    written = generations(tmp_path)[1]
    assert written["versions"] == dict(UPCASTERS.versions())
    assert {name: sha256(folder / name) for name in written["files"]} == written["files"]
    assert "at commit `" in (folder / "RECORDED.md").read_text()
    with pytest.raises(SystemExit, match="schema-1 already holds matches of today's event versions"):
        record(tmp_path)
