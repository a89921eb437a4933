"""A small per-process memo of token hash -> player: most requests skip two Redis round trips.

Bounded (least recently used entries go first) and short-lived (each entry expires a fixed
time after it was looked up in Redis), and safe to share between a server's threads.

A token revoked while a request looks it up in Redis must not be remembered by that request
afterwards: every :meth:`TokenCache.forget` and :meth:`TokenCache.clear` moves the cache's
``generation`` on, and a :meth:`TokenCache.put` told the generation its lookup began in is
dropped if it moved since (revocations are rare: the lookups they waste are few).
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

Value = TypeVar("Value")

DEFAULT_MAX_ENTRIES = 10_000  # a few MB at most; far more than one process's active players
DEFAULT_TTL_SECONDS = 60.0


class TokenCache(Generic[Value]):
    def __init__(
        self, max_entries: int = DEFAULT_MAX_ENTRIES, ttl_seconds: float = DEFAULT_TTL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_entries < 1 or ttl_seconds <= 0:
            raise ValueError("a token cache needs room for one entry and a positive time to live")
        self._max_entries = max_entries
        self._ttl = ttl_seconds
        self._clock = clock
        self._entries: OrderedDict[str, tuple[float, Value]] = OrderedDict()  # key -> (expiry, value)
        self._lock = threading.Lock()
        self._generation = 0

    @property
    def ttl_seconds(self) -> float:
        """How long an entry is remembered after its lookup in Redis."""
        return self._ttl

    @property
    def generation(self) -> int:
        """Moves on at every forget and clear: read it before a lookup, hand it to :meth:`put`."""
        return self._generation

    def get(self, token_hash: str) -> Value | None:
        """The value remembered for ``token_hash``, None if there is none or it expired."""
        with self._lock:
            entry = self._entries.get(token_hash)
            if entry is None:
                return None
            expires, value = entry
            if self._clock() >= expires:
                del self._entries[token_hash]
                return None
            self._entries.move_to_end(token_hash)
            return value

    def put(self, token_hash: str, value: Value, seen: int | None = None) -> None:
        """Remember ``value``; not if a token was forgotten since the generation ``seen`` (its lookup may be stale)."""
        with self._lock:
            if seen is not None and seen != self._generation:
                return
            self._entries[token_hash] = (self._clock() + self._ttl, value)
            self._entries.move_to_end(token_hash)
            while len(self._entries) > self._max_entries:
                self._entries.popitem(last=False)

    def forget(self, token_hash: str) -> None:
        """Drop what is remembered for ``token_hash`` (a revoked token)."""
        with self._lock:
            self._entries.pop(token_hash, None)
            self._generation += 1

    def clear(self) -> None:
        """Forget everything (revocations may have gone unheard)."""
        with self._lock:
            self._entries.clear()
            self._generation += 1

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)
