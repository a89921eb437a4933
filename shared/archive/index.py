"""What an archived match leaves in Redis: one small index entry, so readers know where it went.

The entry is one string, ``"<count> <finished_at> <head>"`` (about 90 bytes of value): the
event count and chain head the archived copy was verified against, and when the match
ended. Where it went is not stored per match: it is the archive's own address
(``ARCHIVE_URL``), the same for every match, and the record's name follows from the id.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import redis

from shared import keys

SCAN_COUNT = 1000  # keys per SCAN step: few round trips, short server pauses


@dataclass(frozen=True)
class IndexEntry:
    """An archived match as Redis still knows it."""

    count: int
    finished_at: int  # epoch ms of the match's last event
    head: str  # the chain hash of its last event

    def encode(self) -> str:
        """The entry's stored form."""
        return f"{self.count} {self.finished_at} {self.head}"

    @classmethod
    def decode(cls, raw: bytes | str) -> IndexEntry:
        """An entry from its stored form."""
        text = raw.decode() if isinstance(raw, bytes) else raw
        count, finished_at, head = text.split(" ")
        return cls(int(count), int(finished_at), head)


class ArchiveIndex:
    """The index entries of archived matches, in Redis."""

    def __init__(self, client: redis.Redis) -> None:
        self._redis = client

    def get(self, match_id: str) -> IndexEntry | None:
        """The match's entry, or None while it is not archived."""
        raw = self._redis.get(keys.match_archived(match_id))
        return None if raw is None else IndexEntry.decode(raw)

    def put(self, match_id: str, entry: IndexEntry) -> None:
        """Record that the match lives in the archive now."""
        self._redis.set(keys.match_archived(match_id), entry.encode())

    def remove(self, match_id: str) -> None:
        """Forget the entry: the match lives in Redis again (a restore put it back)."""
        self._redis.delete(keys.match_archived(match_id))

    def match_ids(self) -> Iterator[str]:
        """The ids of every archived match Redis has an entry for (SCAN: each id once)."""
        seen: set[str] = set()
        for key in self._redis.scan_iter(match=keys.MATCH_ARCHIVED_PATTERN, count=SCAN_COUNT):
            match_id = keys.match_id_from_key(key)
            if match_id not in seen:
                seen.add(match_id)
                yield match_id
