"""Record the fingerprint of every event type's current version: ``python -m tests.golden.fingerprints``.

Only versions not recorded yet are added to ``fingerprints.json``; a recorded version's
fingerprint is never changed (streams written under it exist), so an event whose fields
changed without a new version is refused here with what to do instead.
"""
from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path

from shared.codec.event_versions import UPCASTERS
from shared.codec.fingerprint import Fingerprint, drift, fingerprints
from shared.rules import EVENT_TYPES

FILE = Path(__file__).with_name("fingerprints.json")
Recorded = dict[str, dict[str, Fingerprint]]


def recorded(path: Path = FILE) -> Recorded:
    """The fingerprints recorded so far (none before the first recording)."""
    return json.loads(path.read_text()) if path.exists() else {}


def with_new_versions(known: Mapping[str, Mapping[str, Fingerprint]], now: Recorded) -> Recorded:
    """``known`` plus today's fingerprint of each version not recorded yet (recorded ones kept as they are)."""
    merged = {name: dict(versions) for name, versions in known.items()}
    for name, versions in now.items():
        for version, shape in versions.items():
            merged.setdefault(name, {}).setdefault(version, shape)
    return {name: dict(sorted(merged[name].items(), key=lambda item: int(item[0]))) for name in sorted(merged)}


def main(path: Path = FILE) -> int:
    known, versions = recorded(path), UPCASTERS.versions()
    merged = with_new_versions(known, fingerprints(EVENT_TYPES, versions))
    still = drift(merged, EVENT_TYPES, versions)
    if still:
        print("refused, nothing recorded:\n" + "\n".join(f"- {problem}" for problem in still), file=sys.stderr)
        return 1
    added = sum(len(v) for v in merged.values()) - sum(len(v) for v in known.values())
    path.write_text(json.dumps(merged, indent=1, sort_keys=False) + "\n")
    print(f"{path.name}: {added} new version(s) recorded")
    return 0


if __name__ == "__main__":
    sys.exit(main())
