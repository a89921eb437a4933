"""Where a match's record lives in an archive: ``ab/abcdef….zst``, fanned out by the id's first two characters.

The files archive's path under its root and the S3 archive's key under its prefix alike.
Random ids spread over some 4,096 fan-out names, so no directory (or listing page) holds
millions of entries; an id is checked before it becomes a name, so it is never a path.
"""

from __future__ import annotations

from shared.ids import validate_match_id

SUFFIX = ".zst"
FAN_OUT = 2  # characters of the id that name its directory


def record_name(match_id: str) -> str:
    """Where a match's record lives relative to the archive's root (also its S3 key's tail)."""
    validate_match_id(match_id)  # an id is never a path: no '/', no '..'
    return f"{match_id[:FAN_OUT]}/{match_id}{SUFFIX}"


def match_id_of(name: str) -> str | None:
    """The match id a record's relative name holds, or None for anything else (a temporary file)."""
    file = name.rpartition("/")[2]
    if not file.endswith(SUFFIX) or file.startswith("."):
        return None
    match_id = file[: -len(SUFFIX)]
    try:
        return match_id if record_name(match_id) == name else None
    except ValueError:
        return None
