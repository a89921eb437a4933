"""Which finished matches wait for the archive, and since when: a sorted set the projector fills.

The projector lists a match here when it folds the match's end (``match_won`` or
``match_cancelled``), scored by the time of that last event; the archiver takes it out once
the match lives in the archive. So the sweep asks one ``ZRANGEBYSCORE`` for what is due,
never a scan, and the lag (how many wait, the oldest's age) is two cheap commands. A stale
entry (the archiver died before taking it out) is found archived already and dropped.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from shared import keys


@dataclass(frozen=True)
class Lag:
    """Finished matches not archived yet: how many, how many are overdue, the oldest's end (epoch ms)."""

    waiting: int
    overdue: int
    oldest_finished_at: int | None

    def oldest_age_seconds(self, now_ms: int) -> float:
        """How long ago the oldest waiting match ended (0 when none waits)."""
        return 0.0 if self.oldest_finished_at is None else max(0, now_ms - self.oldest_finished_at) / 1000


class DueMatches:
    """The finished matches waiting for the archive, on a Redis client (single commands only)."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def finished(self, match_id: str, finished_at: int, into: Any = None) -> None:
        """List a match that ended at ``finished_at`` (idempotent); ``into``: a pipeline the caller runs."""
        (self._client if into is None else into).zadd(keys.ARCHIVE_DUE, {keys.validate_match_id(match_id): finished_at})

    def list_missing(self, finished: Mapping[str, int]) -> int:
        """List each match of ``finished`` (id -> end, epoch ms) not listed yet; how many were (one command)."""
        if not finished:
            return 0
        entries = {keys.validate_match_id(match_id): at for match_id, at in finished.items()}
        return int(self._client.zadd(keys.ARCHIVE_DUE, entries, nx=True))

    def due(self, cutoff_ms: int, limit: int = 100) -> list[str]:
        """Matches that ended at ``cutoff_ms`` or before, the longest finished first."""
        members = self._client.zrangebyscore(keys.ARCHIVE_DUE, "-inf", cutoff_ms, 0, limit)
        return [member.decode() if isinstance(member, bytes) else member for member in members]

    def is_due(self, match_id: str) -> bool:
        """Whether the match still waits (an archived one that does: its run died before forgetting it)."""
        return self._client.zscore(keys.ARCHIVE_DUE, match_id) is not None

    def forget(self, match_id: str) -> None:
        """The match is archived: it waits no more."""
        self._client.zrem(keys.ARCHIVE_DUE, match_id)

    def lag(self, cutoff_ms: int) -> Lag:
        """How many wait, how many ended at ``cutoff_ms`` or before, and the oldest's end (one round trip)."""
        pipe = self._client.pipeline(transaction=False)
        pipe.zcard(keys.ARCHIVE_DUE)
        pipe.zcount(keys.ARCHIVE_DUE, "-inf", cutoff_ms)
        pipe.zrange(keys.ARCHIVE_DUE, 0, 0, withscores=True)
        waiting, overdue, first = pipe.execute()
        return Lag(int(waiting), int(overdue), int(first[0][1]) if first else None)
