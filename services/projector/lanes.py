"""The catch-up lanes as their drains see them: taken, spread, waited on, disarmed, adopted.

What the lanes are, for both sides: :mod:`shared.catch_up_lanes`. The drain job that works
through one lane, and why it lingers: :mod:`services.projector.drain`. A worker's
maintenance arms again every lane that holds requests and no job (:meth:`CatchUpLanes.adopt`):
a request is never left in a lane nobody drains.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass

from rq import Queue, Worker

from services.projector.queues import enqueue_drain, rebuild_queue
from shared import keys
from shared.catch_up_lanes import ARMED_MS, MAX_LANES, LaneRequests

BATCH = 64  # matches taken from a lane at once
_EVERYTHING = 1 << 30  # SPOP with a count past the set's size returns the whole set
MIN_WAIT_SECONDS = 0.01

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Taken:
    """A batch taken from a lane, and the jobs waiting for a worker at that moment."""

    matches: list[str]
    catch_ups_waiting: int  # drain jobs of other lanes (or a successor) in the catch-up queue
    rebuilds_waiting: int  # rebuild jobs, served only when the catch-up queue is empty
    left: int = 0  # matches still in the lane after this batch


class CatchUpLanes(LaneRequests):
    """The lanes of one catch-up queue as their drains see them: taken, waited on, disarmed."""

    def __init__(self, queue: Queue, count: int = 0) -> None:
        """``count`` pins the number of lanes; 0 follows the workers listening to ``queue``."""
        self.queue = queue
        self._rebuild_queue_key = rebuild_queue(queue.connection, queue.name).key
        super().__init__(queue.connection, queue.name, lambda: Worker.count(queue=queue),
                         lambda lane: enqueue_drain(queue, lane), count)

    def take(self, lane: int, count: int = BATCH) -> Taken:
        """Up to ``count`` matches of the lane, each handed to this caller only, the lane kept
        armed, and the jobs waiting for a worker. One round trip."""
        name = self.queue.name
        pipe = self._client.pipeline(transaction=False)  # in this order
        pipe.set(keys.lane_armed(name, lane), 1, px=ARMED_MS)
        pipe.delete(keys.lane_wake(name, lane))  # before the take: a later request wakes the drain again
        pipe.spop(keys.lane_pending(name, lane), count)
        pipe.llen(self.queue.key)
        pipe.llen(self._rebuild_queue_key)
        pipe.scard(keys.lane_pending(name, lane))
        _, _, taken, catch_ups, rebuilds, left = pipe.execute()
        return Taken(_ids(taken), int(catch_ups), int(rebuilds), int(left))

    def spread(self, lane: int) -> int:
        """Move the matches of ``lane`` that belong to another lane under the current count
        there, and queue those lanes' drains; how many moved."""
        if self.count == 1 and lane == 0:
            return 0
        by_lane: dict[int, list[str]] = defaultdict(list)
        for match_id in _ids(self._client.spop(keys.lane_pending(self.queue.name, lane), _EVERYTHING)):
            by_lane[self.lane_of(match_id)].append(match_id)
        pipe = self._client.pipeline(transaction=False)
        for to, match_ids in by_lane.items():
            pipe.sadd(keys.lane_pending(self.queue.name, to), *match_ids)
        pipe.execute()
        for to, match_ids in by_lane.items():
            if to != lane:
                self.request(match_ids[0])  # filed already: this arms the lane (or wakes its drain)
        return sum(len(match_ids) for to, match_ids in by_lane.items() if to != lane)

    def adopt(self) -> list[int]:
        """Arm and queue a drain for every lane that holds requests yet has no job (its job
        was lost, or the lane count changed under it); the lanes adopted."""
        name = self.queue.name
        pipe = self._client.pipeline(transaction=False)
        for lane in range(MAX_LANES):
            pipe.scard(keys.lane_pending(name, lane))
            pipe.exists(keys.lane_armed(name, lane))
        figures = pipe.execute()
        adopted = []
        for lane in range(MAX_LANES):
            waiting, armed = figures[2 * lane], figures[2 * lane + 1]
            if waiting and not armed and self._client.set(keys.lane_armed(name, lane), 1, nx=True, px=ARMED_MS):
                self.queue_drain(lane)
                adopted.append(lane)
        return adopted

    def disarm_and_take(self, lane: int) -> list[str]:
        """Disarm the lane, then take all that was added before that (its requests queued no
        job); a request from now on arms the lane again and queues a job of its own."""
        pipe = self._client.pipeline(transaction=False)  # one round trip, in this order
        pipe.delete(keys.lane_armed(self.queue.name, lane))
        pipe.spop(keys.lane_pending(self.queue.name, lane), _EVERYTHING)
        return _ids(pipe.execute()[1])

    def wait(self, lane: int, seconds: float) -> bool:
        """Block until a request reaches the armed lane, at most ``seconds``; True if one did."""
        # Redis reads a timeout under a millisecond as 0, which blocks for ever.
        timeout = max(seconds, MIN_WAIT_SECONDS)
        return self._client.blpop([keys.lane_wake(self.queue.name, lane)], timeout=timeout) is not None

    def waiting(self, lane: int) -> int:
        """How many matches wait in the lane."""
        return int(self._client.scard(keys.lane_pending(self.queue.name, lane)))


def adopt_lanes(queue: Queue) -> None:
    """A worker's maintenance: drains for the lanes of ``queue`` that hold requests and no job."""
    adopted = CatchUpLanes(queue).adopt()
    if adopted:
        log.warning("Queued drains for catch-up lane(s) %s: they held requests and no job", adopted)


def _ids(members: list[bytes]) -> list[str]:
    return [member.decode() for member in members]
