"""Waiting for a match's views to reach a version, woken by the projector's writes.

The views' script publishes the match id on ``keys.VIEWS_CHANGED`` whenever it writes
(and a rebuild's switch publishes once for every match), so a wait costs nothing while
nothing happens: no polling. One listener per process (one connection, one thread,
started on the first wait) hands each message to the waits of that match. Waits also
look again every ``RECHECK_SECONDS``, so a message lost while the listener reconnects
delays an answer by that much at worst, and never loses it.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import redis

from shared import keys

RECHECK_SECONDS = 0.5
EVERY_MATCH = "*"  # the message of a switch: every wait looks again
_RECONNECT_SECONDS = 1.0

log = logging.getLogger(__name__)


class ViewChanges:
    """The waits of one process on the views of matches."""

    def __init__(self, client: Any, recheck_seconds: float = RECHECK_SECONDS) -> None:
        self._client = client
        self._recheck = recheck_seconds
        self._lock = threading.Lock()
        self._waits: dict[str, set[threading.Event]] = {}
        self._listener: threading.Thread | None = None

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
            if self._listener is None or not self._listener.is_alive():
                self._listener = threading.Thread(target=self._listen, name="view-changes", daemon=True)
                self._listener.start()

    def _unregister(self, match_id: str, woken: threading.Event) -> None:
        with self._lock:
            waits = self._waits.get(match_id)
            if waits is not None:
                waits.discard(woken)
                if not waits:
                    del self._waits[match_id]

    def wake(self, match_id: str) -> None:
        """Wake the waits on ``match_id`` (``EVERY_MATCH``: all of them)."""
        with self._lock:
            if match_id == EVERY_MATCH:
                woken = [event for events in self._waits.values() for event in events]
            else:
                woken = list(self._waits.get(match_id, ()))
        for event in woken:
            event.set()

    def _listen(self) -> None:
        """Hand every published change to the waits, for as long as anyone waits."""
        while self._still_needed():
            try:
                self._listen_once()
            except (redis.RedisError, OSError) as error:
                log.warning("view changes: listener lost its Redis (%s); waits look again on their own", error)
                time.sleep(_RECONNECT_SECONDS)

    def _listen_once(self) -> None:
        subscription = self._client.pubsub(ignore_subscribe_messages=True)
        try:
            subscription.subscribe(keys.VIEWS_CHANGED)
            self.wake(EVERY_MATCH)  # anything written before we listened
            while self._still_needed():
                message = subscription.get_message(timeout=self._recheck)
                if message is not None and message["type"] == "message":
                    data = message["data"]
                    self.wake(data.decode() if isinstance(data, bytes) else data)
        finally:
            subscription.close()

    def _still_needed(self) -> bool:
        """True while someone waits and this thread is the listener; else it stands down."""
        with self._lock:
            if self._listener is not threading.current_thread():
                return False
            if self._waits:
                return True
            self._listener = None  # a later wait starts a new one
            return False
