"""The keys an archived match still has in Redis: its index entry, and the archiver's own."""
from __future__ import annotations

from shared.keys.namespace import PREFIX, match_key


def match_archived(match_id: str) -> str:
    """The archived match's index entry (a string: see :mod:`shared.archive.index`).

    ``cold``, not ``archived``: with a longer name the key costs 16 more bytes of Redis for
    every archived match, for ever (allocator size classes).
    """
    return match_key(match_id, "cold")


MATCH_ARCHIVED_PATTERN = f"{PREFIX}:{{m:*}}:cold"
# The finished matches not archived yet (a sorted set: match id scored by its end, epoch ms),
# written by the projector when a match ends: the archiver's sweep reads what is due from it.
ARCHIVE_DUE = f"{PREFIX}:archive:due"
ARCHIVE_TOTALS = f"{PREFIX}:archive:totals"  # a hash: matches archived, their bytes, failures by reason
