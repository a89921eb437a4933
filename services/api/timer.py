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
import time
from collections.abc import Callable

import redis

from shared.eventstore.port import system_clock
from shared.observability import metrics
from shared.observability.log_context import bound
from shared.readmodels.port import ReadSide
from shared.rules import MatchState, RuleError, deadline

from .app import Matches, expire, latest, time_out
from .app.application_errors import ApplicationError

BATCH = 100  # due matches taken per look
MAX_SLEEP_SECONDS = 0.5  # a clock started meanwhile by the projector is seen this soon

log = logging.getLogger(__name__)


class Timer:
    def __init__(
        self, matches: Matches, read_models: ReadSide, lobby_seconds: int,
        clock: Callable[[], int] = system_clock, ended: Callable[[str, MatchState], None] = lambda *_: None,
    ) -> None:
        """``ended``: told of each match a timeout or an expiry ended (its players' slots are given back)."""
        self._matches, self._read_models, self._lobby_ms = matches, read_models, lobby_seconds * 1000
        self._ended = ended
        self._clocks = read_models.clocks
        self._clock = clock

    def fire_due(self) -> int:
        """Record every timeout and expiry due now; how many were recorded."""
        now = self._clock()
        fired = sum(self._time_out(match_id, now) for match_id in self._clocks.due(now, BATCH))
        cutoff = now - self._lobby_ms
        waiting = self._read_models.at(self._read_models.generation()).listed_since("waiting", cutoff, BATCH)
        return fired + sum(self._expire(match_id, now) for match_id in waiting)

    def _time_out(self, match_id: str, now: int) -> int:
        started = time.perf_counter()
        with bound(match_id=match_id):
            try:
                recorded = time_out(self._matches, match_id, now)
            except (RuleError, ApplicationError) as refusal:  # not due, or decided meanwhile: index it as it is
                metrics.record_command("timeout", _outcome(refusal), time.perf_counter() - started)
                self._clocks.set(match_id, deadline(latest(self._matches, match_id).state))
                return 0
            self._clocks.set(match_id, deadline(recorded.state))  # before the projector: no second look
            self._ended(match_id, recorded.state)
            _fired("timeout", "turn", started)
        return 1

    def _expire(self, match_id: str, now: int) -> int:
        started = time.perf_counter()
        with bound(match_id=match_id):
            try:
                recorded = expire(self._matches, match_id, now, self._lobby_ms // 1000)
            except (RuleError, ApplicationError) as refusal:
                metrics.record_command("expire", _outcome(refusal), time.perf_counter() - started)
                return 0  # joined, cancelled or not due: the lobby follows once projected
            self._ended(match_id, recorded.state)
            _fired("expire", "lobby", started)
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


def _outcome(refusal: Exception) -> str:
    """A refusal as a metric label: the rule's code, or the application error's class."""
    code = getattr(refusal, "code", None)
    return metrics.outcome_of(getattr(code, "value", None) or type(refusal).__name__)


def _fired(command: str, kind: str, started: float) -> None:
    metrics.record_command(command, "recorded", time.perf_counter() - started)
    metrics.record_timeout(kind)
    log.info("timer: %s recorded", command, extra={"command": command})


def run_forever(timer: Timer) -> None:
    """Run ``timer`` until SIGTERM or SIGINT."""
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    log.info("timer: firing timeouts and lobby expiries")
    timer.run(stop)
