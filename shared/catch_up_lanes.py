"""The catch-up lanes, as both their sides agree on them: many appends, one projector job.

An RQ job costs a worker about 4 ms of bookkeeping (two dozen Redis commands) before it
folds anything, more than catching a match up does. So the API does not queue a job per
append: it adds the match to one of a few lanes (a set each; a match's lane is a hash of
its id modulo the lane count) and queues a drain job only when the lane is not armed
already. An armed lane's drain may be waiting for requests, so a request to it wakes it.
Lanes let several workers drain at once, so there are as many as live workers listen to
the queue (RQ's registry, read at most every ``COUNT_SECONDS``; ``CATCH_UP_LANES`` pins a
count): a worker started or stopped changes the lanes without a restart of the API. The
drain itself, and why it lingers, is the projector's (``services.projector.drain``); the
two sides meet only through the keys below and the job names of :mod:`shared.job_names`.

Nothing relies on a lane for safety: every append also marks its match unprojected, and
the workers' sweep catches up whatever a drain that died with its worker left behind. The
armed flag expires (``ARMED_MS``), so a dead drain does not hold its lane for long. No
lane is tied to a worker: any worker runs any lane's drain job. When the count changes, a
match's lane may change with it; the requests filed under the old count are drained by the
jobs that hold those lanes, and a lane whose job was lost is armed again by a worker's
maintenance (``services.projector.lanes``).

No RQ here: each side hands :class:`LaneRequests` how it counts the workers and how it
queues a drain job (with RQ, in its own service).
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable
from typing import Any

from shared import keys
from shared.eventstore.alongside import Command
from shared.eventstore.lua import Script

ARMED_MS = 5000  # a running drain arms its lane again at every batch, far within this
COUNT_SECONDS = 1.0  # how long the live workers' count is trusted before RQ's registry is read again
MAX_LANES = 64  # lanes past the workers would only make drains hand workers back and forth

# One round trip for a request: file the match, and arm the lane unless it is armed; an
# armed lane's drain may be waiting for requests, so wake it (one token is enough).
# Riding an append's round trip (ARGV[3], the version the append leads to, and KEYS[4], the
# match's catch-up flag): only if the flag holds that version, i.e. that append asked for a
# catch-up and no read has answered it yet; -1 if not (the caller asks as usual, if it must).
_REQUEST = Script("""
if ARGV[3] and redis.call('GET', KEYS[4]) ~= ARGV[3] then return -1 end
redis.call('SADD', KEYS[1], ARGV[1])
if redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('LLEN', KEYS[3]) == 0 then redis.call('RPUSH', KEYS[3], '1') end
return 0
""")


class LaneRequests:
    """The lanes of one catch-up queue, as a caller asks for catch-ups (keys beside the queue's)."""

    def __init__(
        self, client: Any, queue_name: str, count_workers: Callable[[], int],
        queue_drain_job: Callable[[int], object], count: int = 0,
    ) -> None:
        """``count`` pins the number of lanes; 0 follows ``count_workers()`` (the workers listening)."""
        self._client, self.queue_name = client, queue_name
        self.fixed_count = max(0, min(count, MAX_LANES))
        self._count_workers, self._queue_drain_job = count_workers, queue_drain_job
        self._counted: tuple[float, int] | None = None  # (when, lanes)

    @property
    def count(self) -> int:
        """How many lanes requests are spread over now."""
        if self.fixed_count:
            return self.fixed_count
        now = time.monotonic()
        if self._counted is None or now - self._counted[0] >= COUNT_SECONDS:
            workers = self._count_workers()
            # No worker at all: keep the last count, for the workers that come back.
            lanes = min(workers, MAX_LANES) if workers else (self._counted[1] if self._counted else 1)
            self._counted = (now, lanes)
        return self._counted[1]

    def lane_of(self, match_id: str) -> int:
        return zlib.crc32(keys.validate_match_id(match_id).encode()) % self.count

    def request(self, match_id: str) -> bool:
        """Ask for a catch-up of ``match_id``; True if this queued its lane's drain job."""
        lane = self.lane_of(match_id)
        armed_now = bool(_REQUEST(self._client, self._lane_keys(lane), (match_id, ARMED_MS)))
        if armed_now:
            self.queue_drain(lane)
        return armed_now

    def riding_request(self, match_id: str, version: int) -> tuple[Command, Callable[[Any], bool]]:
        """The request of a catch-up of ``match_id`` as a command for the round trip of the append
        that leads it to ``version`` (after it), and what to make of its reply: True if it filed
        the match (that append asked, and the lane's drain is queued if this armed it), False if
        not (the append did not ask, or a read answered it first: ask as usual if the append did).

        Its keys span two slots (the lane's and the match's): for one server only, whose client
        is this one."""
        lane = self.lane_of(match_id)
        command = _REQUEST.by_sha((*self._lane_keys(lane), keys.match_catch_up(match_id)),
                                  (match_id, ARMED_MS, version))

        def filed(reply: Any) -> bool:
            if isinstance(reply, Exception) or int(reply) < 0:
                return False
            if int(reply) == 1:
                self.queue_drain(lane)
            return True
        return command, filed

    def _lane_keys(self, lane: int) -> tuple[str, str, str]:
        name = self.queue_name
        return keys.lane_pending(name, lane), keys.lane_armed(name, lane), keys.lane_wake(name, lane)

    def queue_drain(self, lane: int) -> None:
        """Queue the drain job of a lane just armed; disarm it if that fails, so that no armed
        lane is left without a job (the next request, or the workers' adoption, tries again)."""
        try:
            self._queue_drain_job(lane)
        except BaseException:
            self._client.delete(keys.lane_armed(self.queue_name, lane))
            raise
