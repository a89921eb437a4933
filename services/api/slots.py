"""Caps on what a process holds open for long (live streams, waiting reads), so they cannot starve commands.

An open stream or a read waiting for a version keeps a greenlet, a socket and some memory
for as long as it lasts: the caps keep a flood of them from taking the process's every
connection (``WORKER_CONNECTIONS``) and memory from the commands. Past ``limit`` in a
process, or past ``per_client`` for one client address, a slot is refused at once: a
stream answers 503 ``STREAMS_BUSY`` with a ``Retry-After``, a wait answers at once.
"""
from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable


class Slots:
    def __init__(
        self, limit: int, per_client: int | None = None, on_change: Callable[[bool], None] | None = None,
    ) -> None:
        self.limit = max(1, limit)
        self._on_change = on_change  # told True as a slot is taken, False as it is given back (a gauge)
        self.per_client = None if per_client is None else max(1, per_client)
        self._lock = threading.Lock()
        self._open = 0
        self._by_client: Counter[str] = Counter()

    @property
    def open(self) -> int:
        """How many hold a slot now."""
        return self._open

    def take(self, client: str = "") -> Callable[[], None] | None:
        """A slot, as the function that gives it back (once, however often it is called); None if none is free."""
        with self._lock:
            if self._open >= self.limit:
                return None
            if self.per_client is not None and self._by_client[client] >= self.per_client:
                return None
            self._open += 1
            self._by_client[client] += 1
        if self._on_change is not None:
            self._on_change(True)
        given_back = False

        def give_back() -> None:
            nonlocal given_back
            with self._lock:
                if not given_back:
                    given_back = True
                    self._open -= 1
                    self._by_client[client] -= 1
                    if not self._by_client[client]:
                        del self._by_client[client]
                    if self._on_change is not None:
                        self._on_change(False)

        return give_back
