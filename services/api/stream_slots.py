"""A cap on the live streams one API process holds open, so viewers cannot starve commands.

An open stream keeps one gunicorn thread for as long as it lasts; with every thread held
by a stream, a move would wait for a viewer to leave. Streams past ``Config.max_streams``
are refused at once with 503 ``STREAMS_BUSY`` and a ``Retry-After``.
"""
from __future__ import annotations

import threading
from collections.abc import Callable


class StreamSlots:
    def __init__(self, limit: int) -> None:
        self.limit = max(1, limit)
        self._lock = threading.Lock()
        self._open = 0

    @property
    def open(self) -> int:
        """How many streams hold a slot now."""
        return self._open

    def take(self) -> Callable[[], None] | None:
        """A slot, as the function that gives it back (once, however often it is called); None if all are taken."""
        with self._lock:
            if self._open >= self.limit:
                return None
            self._open += 1
        given_back = False

        def give_back() -> None:
            nonlocal given_back
            with self._lock:
                if not given_back:
                    given_back = True
                    self._open -= 1

        return give_back
