"""Catch-up lanes: many appends, one projector job.

An RQ job costs a worker about 4 ms of bookkeeping (two dozen Redis commands) before it
folds anything, more than catching a match up does. So the API does not queue a job per
append: it adds the match to one of a few lanes (a set each; a match's lane is fixed by a
hash of its id) and queues a :func:`drain` job only when the lane is not armed already.
The drain keeps the lane armed, takes its matches in batches and catches each up until
the lane is empty, then disarms it and looks once more (a match added just before that
found the lane armed and queued nothing). Under load one job drains many matches; idle,
each append still gets a job of its own. Lanes let several workers drain at once.

A drain first lingers a few milliseconds (``ProjectorContext.linger_seconds``, from
``CATCH_UP_LINGER_MS``): the appends of that window join its batch, and a match that moved
twice meanwhile is folded and written once. It costs the read models that much lag.

Nothing relies on a lane for safety: every append also marks its match unprojected, and
the workers' sweep catches up whatever a drain that died with its worker left behind. The
armed flag expires (``ARMED_MS``), so a dead drain does not hold its lane for long.
"""

from __future__ import annotations

import logging
import time
import zlib
from collections.abc import Callable
from typing import Any

import redis
from rq import Queue, get_current_job

from services.projector.jobs import ProjectorContext, catch_up, current_context
from services.projector.queue import enqueue_drain
from shared.eventstore import keys

ARMED_MS = 5000  # a running drain arms its lane again at every batch, far within this
BATCH = 64  # matches taken from a lane at once
BUDGET_SECONDS = 1.0  # then a fresh job carries on (the lane stays armed), so none runs long

log = logging.getLogger(__name__)


class CatchUpLanes:
    """The lanes of one catch-up queue (their keys live beside the queue's)."""

    def __init__(self, queue: Queue, count: int = 4) -> None:
        self.queue, self.count = queue, max(1, count)
        self._client = queue.connection

    def lane_of(self, match_id: str) -> int:
        return zlib.crc32(keys.validate_match_id(match_id).encode()) % self.count

    def request(self, match_id: str) -> bool:
        """Ask for a catch-up of ``match_id``; True if this queued its lane's drain job."""
        lane = self.lane_of(match_id)
        pipe = self._client.pipeline(transaction=False)
        pipe.sadd(keys.lane_pending(self.queue.name, lane), match_id)
        pipe.set(keys.lane_armed(self.queue.name, lane), 1, nx=True, px=ARMED_MS)
        armed_now = bool(pipe.execute()[1])
        if armed_now:
            enqueue_drain(self.queue, lane)
        return armed_now

    def take(self, lane: int, count: int = BATCH) -> list[str]:
        """Up to ``count`` matches of the lane, each handed to this caller only; the lane stays armed."""
        armed = keys.lane_armed(self.queue.name, lane)
        return self._take(lane, count, lambda pipe: pipe.set(armed, 1, px=ARMED_MS))

    def disarm_and_take(self, lane: int, count: int = BATCH) -> list[str]:
        """Disarm the lane, then take what was added before that (its requests queued no job)."""
        armed = keys.lane_armed(self.queue.name, lane)
        return self._take(lane, count, lambda pipe: pipe.delete(armed))

    def _take(self, lane: int, count: int, first: Callable[[Any], Any]) -> list[str]:
        pipe = self._client.pipeline(transaction=False)  # one round trip, in this order
        first(pipe)
        pipe.spop(keys.lane_pending(self.queue.name, lane), count)
        return [match_id.decode() for match_id in pipe.execute()[1]]

    def waiting(self, lane: int) -> int:
        """How many matches wait in the lane."""
        return int(self._client.scard(keys.lane_pending(self.queue.name, lane)))


def drain(
    lane: int, lanes: CatchUpLanes | None = None, context: ProjectorContext | None = None,
    budget_seconds: float = BUDGET_SECONDS,
) -> int:
    """The lane's job: catch up every match of ``lane`` until it is empty; how many it caught up."""
    lanes = lanes or _lanes_of_this_job()
    ctx = context or current_context()
    time.sleep(ctx.linger_seconds)
    deadline = time.monotonic() + budget_seconds
    caught_up = 0
    while True:
        batch = lanes.take(lane)
        if not batch:
            batch = lanes.disarm_and_take(lane)
            if not batch:
                return caught_up
        for match_id in batch:
            caught_up += _catch_up_one(match_id, ctx)
        if time.monotonic() > deadline:
            enqueue_drain(lanes.queue, lane)  # still armed: the next job carries on
            return caught_up


def _catch_up_one(match_id: str, ctx: ProjectorContext) -> int:
    """Catch one match up; a failure of that match alone is logged and left to the sweep."""
    try:
        catch_up(match_id, ctx)
    except redis.RedisError:
        raise  # every other match would fail too: fail the job (the sweep redoes its matches)
    except Exception:
        log.exception("Catch-up of match %s failed; it keeps its mark for the sweep", match_id)
        return 0
    return 1


def _lanes_of_this_job() -> CatchUpLanes:
    job = get_current_job()
    if job is None:
        raise RuntimeError("drain() outside an RQ job needs its lanes")
    return CatchUpLanes(Queue(job.origin, connection=job.connection))
