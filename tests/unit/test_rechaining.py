"""Taking an erased player's name out of schema-1 events: the rewrite, its chain, and the audit of its record."""
from __future__ import annotations

from dataclasses import replace

from services.cli.exports import read_export
from shared.audit import AuditReport, audit_events, check_rechainings
from shared.rechaining import ERASURE, Rechaining, names_out
from tests.golden.record import GOLDEN

MATCH = "golden-schema-1-13"
EVENTS = read_export((GOLDEN / "schema-1" / "13-resigned.jsonl").read_bytes().splitlines()).events


def test_only_the_erased_players_schema_1_events_change_and_the_new_chain_audits():
    rewritten = names_out(MATCH, EVENTS, {"carol-7"})

    assert rewritten is not None and audit_events(MATCH, rewritten).ok
    joined = rewritten[1]
    assert (joined.schema_version, "player_name" in joined.data) == (2, False)
    assert joined.data == {k: v for k, v in EVENTS[1].data.items() if k != "player_name"}
    assert rewritten[0].data == EVENTS[0].data and rewritten[0].hash == EVENTS[0].hash  # before it: the same
    assert [(e.version, e.type, e.at, e.data) for e in rewritten[2:]] == [
        (e.version, e.type, e.at, e.data) for e in EVENTS[2:]]
    assert rewritten[-1].hash != EVENTS[-1].hash
    assert EVENTS[1].data["player_name"] == "Carol"  # the events given are left as they were


def test_a_match_naming_none_of_them_is_not_rewritten():
    assert names_out(MATCH, EVENTS, {"someone-else"}) is None
    again = names_out(MATCH, names_out(MATCH, EVENTS, {"carol-7"}), {"carol-7"})
    assert again is None  # once rewritten, a repeat finds nothing to do


def _report(stored, records):
    report = AuditReport(MATCH, len(stored))
    check_rechainings(stored, records, report)
    return report


def test_the_audit_notes_a_rechaining_that_fits_the_chain_and_fails_one_that_does_not():
    rewritten = names_out(MATCH, EVENTS, {"carol-7"})
    fits = Rechaining(EVENTS[-1].hash, rewritten[-1].hash, len(rewritten), 0, ERASURE)

    assert _report(rewritten, [fits]).ok and "(erasure)" in _report(rewritten, [fits]).notes[0]
    assert [f.check for f in _report(EVENTS, [fits]).failures] == ["chain"]
    broken_sequence = [fits, replace(fits, old_head="0" * 64)]
    assert [f.check for f in _report(rewritten, broken_sequence).failures] == ["chain"]
    assert _report(EVENTS, []).ok and _report(EVENTS, []).notes == []
