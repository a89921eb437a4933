"""Record the golden corpus of today's event schema: ``python -m tests.golden.record``.

Plays every scenario (:mod:`.scenarios`) through the command side into an in-memory
store and writes, into a new ``tests/golden/schema-N/``, each match's ``truc export``
file and what it folds to (:mod:`.expectations`), a MANIFEST.json (each event type's
schema version, and every file's sha256) and RECORDED.md (the commit and what each match
is). N is one more than the newest recorded; a generation already holding today's
versions is never recorded again, and a recorded one is never edited.
"""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from services.cli.exports import export_lines
from shared.audit import audit_events
from shared.codec.event_versions import UPCASTERS

from .expectations import expectation, replay_versions
from .scenarios import PLAYERS, SCENARIOS, Scenario, Table, play

GOLDEN = Path(__file__).parent
MANIFEST = "MANIFEST.json"


def generations(root: Path = GOLDEN) -> dict[int, dict]:
    """Each recorded ``schema-N`` folder's manifest, by N."""
    found = {}
    for folder in root.glob("schema-*"):
        if folder.name.removeprefix("schema-").isdigit() and (folder / MANIFEST).exists():
            found[int(folder.name.removeprefix("schema-"))] = json.loads((folder / MANIFEST).read_text())
    return dict(sorted(found.items()))


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def record_match(folder: Path, number: int, scenario: Scenario, table: Table, match_id: str) -> str:
    """Write one played match's export and expectation; the line RECORDED.md gives it."""
    stored = table.store.read(match_id)
    report = audit_events(match_id, stored)
    if not report.ok:
        raise SystemExit(f"{scenario.name}: the audit fails: {report.failures[0]}")
    stem = f"{number:02d}-{scenario.name}"
    seated = {event.data[field] for event in stored for field in ("creator_id", "player_id") if field in event.data}
    names = {player.id: player.name for player in PLAYERS if player.id in seated}  # the directory's, in the header
    (folder / f"{stem}.jsonl").write_bytes(b"".join(export_lines(match_id, stored, names=names)))
    expected = expectation(match_id, stored, replay_versions(len(stored)), names)
    (folder / f"{stem}.expected.json").write_text(json.dumps(expected, indent=1, ensure_ascii=False) + "\n")
    spectator = expected["views"]["spectator"]
    ending = spectator.get("ended_by") or spectator["status"]
    if ending != scenario.ending:
        raise SystemExit(f"{scenario.name} was to end {scenario.ending!r}, but ended {ending!r}: choose another seed")
    created = [flag for flag in ("custom", "private", "capped") if stored[0].data.get(flag)]
    scores = f"{expected['scores']['A']}-{expected['scores']['B']}"
    return f"| `{stem}` | {len(stored)} | {ending} | {scores} | {', '.join(created)} |"


def record(root: Path = GOLDEN) -> Path:
    """Record a new generation of today's versions; SystemExit if one holds them already."""
    versions, known = dict(UPCASTERS.versions()), generations(root)
    same = [n for n, manifest in known.items() if manifest["versions"] == versions]
    if same:
        raise SystemExit(f"schema-{same[0]} already holds matches of today's event versions: nothing recorded "
                         "(a recorded generation is never edited)")
    folder = root / f"schema-{max(known, default=0) + 1}"
    folder.mkdir()
    table, lines = Table(), []
    for number, scenario in enumerate(SCENARIOS, 1):
        match_id = f"golden-{folder.name}-{number:02d}"
        play(scenario, table, match_id)
        lines.append(record_match(folder, number, scenario, table, match_id))
    (folder / "RECORDED.md").write_text(_recorded_note(folder.name, lines))
    files = {path.name: sha256(path) for path in sorted(folder.iterdir())}
    (folder / MANIFEST).write_text(json.dumps({"versions": versions, "files": files}, indent=1) + "\n")
    return folder


def _recorded_note(name: str, lines: list[str]) -> str:
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=GOLDEN, capture_output=True, text=True).stdout.strip()
    day = datetime.now(UTC).date().isoformat()
    return (f"# {name}\n\nRecorded {day} by `python -m tests.golden.record` at commit `{commit or 'unknown'}`.\n"
            "Never edited: MANIFEST.json holds each file's sha256 and each event type's schema version.\n\n"
            "| match | events | ended by | scores | created |\n|---|---|---|---|---|\n" + "\n".join(lines) + "\n")


if __name__ == "__main__":
    recorded = record()
    print(f"recorded {len(SCENARIOS)} matches in {recorded.relative_to(GOLDEN.parent.parent)}", file=sys.stderr)
