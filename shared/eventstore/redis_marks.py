"""The projector's marks on Redis: the "unprojected" mark of each match, and the index of marked matches.

The append script (:mod:`.redis_store`) sets a match's mark and lists it in the index in the same
step as its events; this clears it once the projector has folded that far (unless a newer append
set it again), counts the marked matches from the index without scanning the keyspace, and sweeps
the marks (the backstop of the catch-up jobs). On a cluster the index is one set per slot
(:func:`shared.keys.unprojected_index`), so every script still touches one slot.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from shared import keys
from shared.connect import is_cluster_client
from shared.eventstore import lua
from shared.eventstore.entries import text as _text

SCAN_COUNT = 1000  # keys per SCAN step: few round trips, short server pauses


class RedisProjectionMarks:
    """The :class:`~shared.eventstore.marks.ProjectionMarks` contract on Redis; the event store is one."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self._per_slot = is_cluster_client(client)  # the unprojected index: one set per slot

    def unprojected(self) -> Iterator[str]:
        """Ids of the matches carrying the unprojected mark.

        This is the backstop sweep: the normal path is the catch-up job the API
        enqueues after each append. SCAN may repeat a key; we yield each id once.
        """
        return self._scan_match_ids(keys.MATCH_UNPROJECTED_PATTERN)

    def mark_projected(self, match_id: str, version: int) -> bool:
        """Clear the mark unless a newer append set it; True if no mark remains."""
        script_keys = [keys.match_unprojected(match_id), keys.unprojected_index(match_id, self._per_slot)]
        cleared = lua.MARK_PROJECTED(self._client, script_keys, [version, match_id])
        return bool(int(cleared))

    def unprojected_count(self) -> int:
        """How many matches carry the mark, from the index the scripts keep (no keyspace scan)."""
        indexes = keys.unprojected_indexes(self._per_slot)
        pipe = self._client.pipeline(transaction=False)
        for index in indexes:
            pipe.scard(index)
        return sum(int(count) for count in pipe.execute())

    def unprojected_listed(self) -> Iterator[str]:
        """The matches the index lists as carrying the mark (what /health counts)."""
        for index in keys.unprojected_indexes(self._per_slot):
            for member in self._client.sscan_iter(index, count=SCAN_COUNT):
                yield _text(member)

    def _scan_match_ids(self, pattern: str) -> Iterator[str]:
        seen: set[str] = set()
        for key in self._client.scan_iter(match=pattern, count=SCAN_COUNT):
            match_id = keys.match_id_from_key(key)
            if match_id not in seen:
                seen.add(match_id)
                yield match_id
