"""Waiting for a match's views to reach a version, woken by the projector's writes.

The views' script publishes the match id on ``keys.VIEWS_CHANGED`` whenever it writes
(and a rebuild's switch publishes once for every match), so a wait costs nothing while
nothing happens: no polling. The process's one :class:`~shared.subscriber.Subscriber`
(one connection, one thread, started on the first wait; the API's live streams share it)
hands each message to the waits of that match. Waits also look again every
``RECHECK_SECONDS``, so a message lost while the subscriber reconnects delays an answer
by that much at worst, and never loses it.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable

from shared import keys
from shared.subscriber import Subscriber

RECHECK_SECONDS = 0.5
EVERY_MATCH = "*"  # the message of a switch: every wait looks again


class ViewChanges:
    """The waits of one process on the views of matches, woken through ``subscriber``."""

    def __init__(self, subscriber: Subscriber, recheck_seconds: float = RECHECK_SECONDS) -> None:
        self._subscriber = subscriber
        self._recheck = recheck_seconds
        self._lock = threading.Lock()
        self._waits: dict[str, set[threading.Event]] = {}
        subscriber.on(keys.VIEWS_CHANGED, self.wake, lambda: bool(self._waits))

    def wait_until(self, match_id: str, reached: Callable[[], int], min_version: int, timeout_s: float) -> int:
        """Until ``reached()`` (the projected version) is ``min_version`` or ``timeout_s`` passes; its last value."""
        deadline = time.monotonic() + max(timeout_s, 0.0)
        woken = threading.Event()
        self._register(match_id, woken)  # before the first look: a write just after it still wakes us
        try:
            while True:
                version = reached()
                left = deadline - time.monotonic()
                if version >= min_version or left <= 0:
                    return version
                woken.wait(min(left, self._recheck))
                woken.clear()
        finally:
            self._unregister(match_id, woken)

    def _register(self, match_id: str, woken: threading.Event) -> None:
        with self._lock:
            self._waits.setdefault(match_id, set()).add(woken)
        self._subscriber.start()  # after the wait counts: a subscriber standing down sees it, or a new one starts

    def _unregister(self, match_id: str, woken: threading.Event) -> None:
        with self._lock:
            waits = self._waits.get(match_id)
            if waits is not None:
                waits.discard(woken)
                if not waits:
                    del self._waits[match_id]

    def wake(self, match_id: str | None) -> None:
        """Wake the waits on ``match_id`` (``EVERY_MATCH`` or None: all of them)."""
        with self._lock:
            if match_id is None or match_id == EVERY_MATCH:
                woken = [event for events in self._waits.values() for event in events]
            else:
                woken = list(self._waits.get(match_id, ()))
        for event in woken:
            event.set()
