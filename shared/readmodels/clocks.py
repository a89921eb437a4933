"""The running clocks: which matches are due when, so the timer never scans matches.

A sorted set (``keys.CLOCKS``): member the match id, score the deadline (epoch ms) of the
seat that owes the next decision (RULES.md R28). The projector writes it with the served
read models, so it is derived from the stream like any read model: a lost write is redone
by the sweep, a rebuild writes it again. Stale entries are harmless: the timer decides
each timeout on the match as the stream says (a deadline only moves later as a match
goes on), and sets the entry again from what it found.

Lobby expiry needs no index of its own: the waiting lobby is already scored by creation
time.
"""
from __future__ import annotations

from typing import Any

from shared import keys


class Clocks:
    """The clock index on a Redis client (one global sorted set, single commands only)."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def set(self, match_id: str, deadline_ms: int | None, into: Any = None) -> None:
        """Index the match's deadline; None: no clock runs (waiting, finished, cancelled).

        ``into``: a pipeline to queue the write on, which the caller executes; else it is sent at once.
        """
        keys.validate_match_id(match_id)
        client = self._client if into is None else into
        if deadline_ms is None:
            client.zrem(keys.CLOCKS, match_id)
        else:
            client.zadd(keys.CLOCKS, {match_id: deadline_ms})

    def due(self, now_ms: int, limit: int = 100) -> list[str]:
        """Matches whose deadline has passed, the most overdue first."""
        return [_text(member) for member in self._client.zrangebyscore(keys.CLOCKS, "-inf", now_ms, 0, limit)]

    def next_deadline(self) -> int | None:
        """The earliest indexed deadline, if any clock runs."""
        first = self._client.zrange(keys.CLOCKS, 0, 0, withscores=True)
        return int(first[0][1]) if first else None

    def running(self) -> int:
        """How many clocks run."""
        return int(self._client.zcard(keys.CLOCKS))


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
