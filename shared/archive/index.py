"""What an archived match leaves in Redis: one small index entry, so readers know where it went.

The entry is one binary string of 42 bytes (:meth:`IndexEntry.encode`): the chain head and
event count the archived copy was verified against, and when the match ended. With its key
that is 124 bytes of Redis 6.2 (MEMORY USAGE: a value of at most 44 bytes shares one
allocation with its header; the text form took 184). Where the match went is not stored per
match: it is the archive's own address (``ARCHIVE_URL``), the same for every match, and the
record's name follows from the id.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import redis

from shared import keys

_ENTRY_BYTES = 42

SCAN_COUNT = 1000  # keys per SCAN step: few round trips, short server pauses


@dataclass(frozen=True)
class IndexEntry:
    """An archived match as Redis still knows it."""

    count: int
    finished_at: int  # epoch ms of the match's last event
    head: str  # the chain hash of its last event (64 hex digits)

    def encode(self) -> bytes:
        """The entry's stored form: 42 bytes (the head's 32, the count's 4, the end's 6 in ms)."""
        return bytes.fromhex(self.head) + self.count.to_bytes(4, "big") + self.finished_at.to_bytes(6, "big")

    @classmethod
    def decode(cls, raw: bytes) -> IndexEntry:
        """An entry from its stored form."""
        if len(raw) != _ENTRY_BYTES:
            raise ValueError(f"an archive index entry holds {_ENTRY_BYTES} bytes, not {len(raw)}")
        return cls(int.from_bytes(raw[32:36], "big"), int.from_bytes(raw[36:], "big"), raw[:32].hex())


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
