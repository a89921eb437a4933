"""When each session was last used, written off the request's path: authentication adds no round trip.

An authenticated request only notes its token's hash in memory (:meth:`LastSeen.saw`: a dict
write under a lock). A background thread of the process (a greenlet under gevent) writes what
was noted every few seconds, in one pipeline, and each token at most once a minute: a player
acting every second costs one write a minute per process, not one a request. A token this
process has heard revoked is not written back (its line is gone; writing it would leave
litter). The listing adds what this process noted but has not written yet, so a device is
seen at once where it asks.
"""
from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import redis

from shared import keys

WRITE_EVERY_SECONDS = 60.0  # a token's last use is written at most this often (per process)
FLUSH_SECONDS = 5.0  # how often the background thread writes what was noted
REMEMBERED = 100_000  # tokens whose last write time is kept (the oldest are forgotten first)

log = logging.getLogger(__name__)


class LastSeen:
    """Notes tokens' last use in memory and writes them to ``client`` in the background."""

    def __init__(self, client: Any, revoked: Callable[[str], bool] = lambda token_hash: False,
                 clock: Callable[[], float] = time.time) -> None:
        self._client = client
        self._revoked = revoked
        self._clock = clock
        self._lock = threading.Lock()
        self._pending: dict[str, tuple[str, int]] = {}  # token hash -> (player id, epoch ms of its last use)
        self._written: OrderedDict[str, float] = OrderedDict()  # token hash -> when it was last written
        self._thread: threading.Thread | None = None
        self._stopped = threading.Event()  # its wait is the writer's pause (not time.sleep, which callers may stub)

    def saw(self, player_id: str, token_hash: str) -> None:
        """``token_hash`` was used now by ``player_id``; no I/O (the writer is started on first use)."""
        now = self._clock()
        with self._lock:
            written = self._written.get(token_hash)
            if written is not None and now - written < WRITE_EVERY_SECONDS:
                return
            self._pending[token_hash] = (player_id, int(now * 1000))
        if self._thread is None:
            self._start()

    def unwritten(self, player_id: str) -> dict[str, int]:
        """The player's tokens noted here but not written yet: token hash -> epoch ms."""
        with self._lock:
            return {hashed: ms for hashed, (owner, ms) in self._pending.items() if owner == player_id}

    def flush(self) -> int:
        """Write what was noted, in one round trip; how many lines were written."""
        with self._lock:
            pending, self._pending = self._pending, {}
        pending = {hashed: seen for hashed, seen in pending.items() if not self._revoked(hashed)}
        if not pending:
            return 0
        pipe = self._client.pipeline(transaction=False)
        for hashed, (player_id, ms) in pending.items():
            pipe.hset(keys.player_seen(player_id), hashed, ms)
        pipe.execute()
        now = self._clock()
        with self._lock:
            for hashed in pending:
                self._written[hashed] = now
                self._written.move_to_end(hashed)
            while len(self._written) > REMEMBERED:
                self._written.popitem(last=False)
        return len(pending)

    def _start(self) -> None:
        with self._lock:
            if self._thread is not None:
                return
            self._thread = threading.Thread(target=self._run, name="last-seen", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """End the background writer at its next pause (what it has not written yet is left unwritten)."""
        self._stopped.set()

    def _run(self) -> None:
        while not self._stopped.wait(FLUSH_SECONDS):
            try:
                self.flush()
            # A last use lost: the next request of that token notes it again. A cluster client that
            # is closing raises RedisClusterException, no RedisError: the writer must outlive it too.
            except (redis.RedisError, redis.exceptions.RedisClusterException) as error:
                log.warning("could not write when sessions were last seen: %s", error)
