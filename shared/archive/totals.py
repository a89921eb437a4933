"""What the archivers did, all processes together: kept in Redis so any API's /metrics shows it.

One small hash (``keys.ARCHIVE_TOTALS``), counted up with HINCRBY: ``archived`` (matches moved
out of Redis), ``bytes`` (their size in the archive) and ``failed:<reason>``.
"""
from __future__ import annotations

from typing import Any

from shared import keys

FAILURE_REASONS = ("unreachable", "verify", "redis")


class ArchiveTotals:
    """The archivers' counters, on a Redis client."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def archived(self, size: int) -> None:
        """One more match archived, of ``size`` bytes in the archive."""
        pipe = self._client.pipeline(transaction=False)
        pipe.hincrby(keys.ARCHIVE_TOTALS, "archived", 1)
        pipe.hincrby(keys.ARCHIVE_TOTALS, "bytes", size)
        pipe.execute()

    def failed(self, reason: str) -> None:
        """One archiving attempt failed for ``reason`` (one of FAILURE_REASONS)."""
        self._client.hincrby(keys.ARCHIVE_TOTALS, f"failed:{reason}", 1)

    def read(self) -> dict[str, int]:
        """``archived``, ``bytes`` and ``failed:<reason>`` for every reason, 0 when never counted."""
        raw = {_text(name): int(value) for name, value in self._client.hgetall(keys.ARCHIVE_TOTALS).items()}
        names = ["archived", "bytes", *(f"failed:{reason}" for reason in FAILURE_REASONS)]
        return {name: raw.get(name, 0) for name in names}


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
