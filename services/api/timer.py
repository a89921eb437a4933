"""``python -m services.api timer``: fires the timeouts and lobby expiries that fall due.

It is part of the command service: every timeout and expiry is recorded through the
same use cases and the same versioned append as a player's action, so a move that lands
first wins and the timeout is simply refused. Due matches come from the clock index and
the waiting lobby (:mod:`shared.readmodels.clocks`), never from a scan of matches, so
idle matches cost nothing until they fall due. Nothing is lost with this process: the
index is derived from the streams, and a timer started later fires what fell due
meanwhile. Any number may run (one per API host): the version check keeps each timeout
recorded once.
"""
from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable

import redis

from shared.eventstore.port import system_clock
from shared.readmodels import ReadModels
from shared.readmodels.clocks import Clocks
from shared.rules import RuleError, deadline

from .app import Matches, expire, latest, time_out
from .app.errors import ApplicationError

BATCH = 100  # due matches taken per look
MAX_SLEEP_SECONDS = 0.5  # a clock started meanwhile by the projector is seen this soon

log = logging.getLogger(__name__)


class Timer:
    def __init__(
        self, matches: Matches, read_models: ReadModels, lobby_seconds: int,
        clock: Callable[[], int] = system_clock,
    ) -> None:
        self._matches, self._read_models, self._lobby_ms = matches, read_models, lobby_seconds * 1000
        self._clocks = Clocks(read_models.client)
        self._clock = clock

    def fire_due(self) -> int:
        """Record every timeout and expiry due now; how many were recorded."""
        now = self._clock()
        fired = sum(self._time_out(match_id, now) for match_id in self._clocks.due(now, BATCH))
        cutoff = now - self._lobby_ms
        waiting = self._clocks.waiting_since(self._read_models.generation(), cutoff, BATCH)
        return fired + sum(self._expire(match_id, now) for match_id in waiting)

    def _time_out(self, match_id: str, now: int) -> int:
        try:
            recorded = time_out(self._matches, match_id, now)
        except (RuleError, ApplicationError):  # not due, or decided meanwhile: index it as it is
            self._clocks.set(match_id, deadline(latest(self._matches, match_id).state))
            return 0
        self._clocks.set(match_id, deadline(recorded.state))  # before the projector: no second look
        return 1

    def _expire(self, match_id: str, now: int) -> int:
        try:
            expire(self._matches, match_id, now, self._lobby_ms // 1000)
        except (RuleError, ApplicationError):
            return 0  # joined, cancelled or not due: the lobby follows once projected
        return 1

    def seconds_to_next(self) -> float:
        """How long to sleep: until the next indexed deadline, at most MAX_SLEEP_SECONDS."""
        upcoming = self._clocks.next_deadline()
        if upcoming is None:
            return MAX_SLEEP_SECONDS
        return min(MAX_SLEEP_SECONDS, max(0.0, (upcoming - self._clock()) / 1000))

    def run(self, stop: threading.Event) -> None:
        """Fire what falls due until ``stop`` is set; a Redis outage only pauses it."""
        while not stop.is_set():
            try:
                if self.fire_due():
                    continue  # there may be more in this batch's wake
                pause = self.seconds_to_next()
            except redis.RedisError as error:
                log.warning("timer: Redis unavailable (%s); trying again", error)
                pause = 1.0
            stop.wait(pause)


def run_forever(timer: Timer) -> None:
    """Run ``timer`` until SIGTERM or SIGINT."""
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    log.info("timer: firing timeouts and lobby expiries")
    timer.run(stop)
