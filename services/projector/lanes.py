"""Catch-up lanes: many appends, one projector job.

An RQ job costs a worker about 4 ms of bookkeeping (two dozen Redis commands) before it
folds anything, more than catching a match up does. So the API does not queue a job per
append: it adds the match to one of a few lanes (a set each; a match's lane is fixed by a
hash of its id) and queues a :func:`drain` job only when the lane is not armed already.
The drain keeps the lane armed, takes its matches in batches and catches each up. Lanes
let several workers drain at once.

A drain lingers a few milliseconds before its first batch (``ProjectorContext.linger_seconds``,
from ``CATCH_UP_LINGER_MS``): the appends of that window join it, and a match that moved
twice meanwhile is folded and written once. It costs the read models that much lag. When
its lane runs empty the drain does not leave at once, since under steady play the next
request is a few milliseconds away: it blocks on the lane's wake list (a request to an
armed lane pushes to it) for up to ``PATIENCE_SECONDS`` and lingers again when woken. It
waits only while no other job waits for a worker; then it disarms the lane and looks once
more (a match added just before that found the lane armed and queued nothing). A lane
whose requests keep coming while batches are caught up is busy: there the drain lingers
longer between batches (``busy_linger_seconds``, ``CATCH_UP_BUSY_LINGER_MS``), so each
catch-up folds more appends. Under load one job serves a lane for its whole budget; idle,
each append still gets a job of its own. A drain never keeps a worker another job waits
for: behind another lane's waiting drain it queues a successor for its own lane (so lanes
take turns when workers are fewer), and for a waiting rebuild job it gives its lane up.

Nothing relies on a lane for safety: every append also marks its match unprojected, and
the workers' sweep catches up whatever a drain that died with its worker left behind. The
armed flag expires (``ARMED_MS``), so a dead drain does not hold its lane for long.
"""

from __future__ import annotations

import logging
import time
import zlib
from dataclasses import dataclass

import redis
from rq import Queue, get_current_job

from services.projector.jobs import ProjectorContext, catch_up, current_context
from services.projector.queue import enqueue_drain, rebuild_queue
from shared import keys
from shared.eventstore.lua import Script

ARMED_MS = 5000  # a running drain arms its lane again at every batch, far within this
BATCH = 64  # matches taken from a lane at once
_EVERYTHING = 1 << 30  # SPOP with a count past the set's size returns the whole set
BUDGET_SECONDS = 1.0  # then a fresh job carries on (the lane stays armed), so none runs long
PATIENCE_SECONDS = 0.05  # an empty lane is waited on this long before its drain gives the worker back
MIN_WAIT_SECONDS = 0.01

# One round trip for a request: file the match, and arm the lane unless it is armed; an
# armed lane's drain may be waiting for requests, so wake it (one token is enough).
_REQUEST = Script("""
redis.call('SADD', KEYS[1], ARGV[1])
if redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('LLEN', KEYS[3]) == 0 then redis.call('RPUSH', KEYS[3], '1') end
return 0
""")

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Taken:
    """A batch taken from a lane, and the jobs waiting for a worker at that moment."""

    matches: list[str]
    catch_ups_waiting: int  # drain jobs of other lanes (or a successor) in the catch-up queue
    rebuilds_waiting: int  # rebuild jobs, served only when the catch-up queue is empty


class CatchUpLanes:
    """The lanes of one catch-up queue (their keys live beside the queue's)."""

    def __init__(self, queue: Queue, count: int = 2) -> None:
        self.queue, self.count = queue, max(1, count)
        self._client = queue.connection
        self._rebuild_queue_key = rebuild_queue(self._client, queue.name).key

    def lane_of(self, match_id: str) -> int:
        return zlib.crc32(keys.validate_match_id(match_id).encode()) % self.count

    def request(self, match_id: str) -> bool:
        """Ask for a catch-up of ``match_id``; True if this queued its lane's drain job."""
        lane = self.lane_of(match_id)
        name = self.queue.name
        lane_keys = (keys.lane_pending(name, lane), keys.lane_armed(name, lane), keys.lane_wake(name, lane))
        armed_now = bool(_REQUEST(self._client, lane_keys, (match_id, ARMED_MS)))
        if armed_now:
            try:
                enqueue_drain(self.queue, lane)
            except BaseException:
                self._client.delete(lane_keys[1])  # no job holds the lane: the next request tries again
                raise
        return armed_now

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
        _, _, taken, catch_ups, rebuilds = pipe.execute()
        return Taken(_ids(taken), int(catch_ups), int(rebuilds))

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


def drain(
    lane: int, lanes: CatchUpLanes | None = None, context: ProjectorContext | None = None,
    budget_seconds: float = BUDGET_SECONDS, patience_seconds: float = PATIENCE_SECONDS,
) -> int:
    """The lane's job: catch up the matches of ``lane`` while it stays busy; how many it caught up.

    It leaves the worker to others when a job waits for one: after a batch when another
    lane's drain waits (a successor job carries this lane on, behind it), and before
    waiting on an empty lane or at the end of its budget when a rebuild job waits (the
    lane is given up, so a rebuild gets the worker while the catch-up queue is empty).
    """
    lanes = lanes or _lanes_of_this_job()
    ctx = context or current_context()
    deadline = time.monotonic() + budget_seconds
    caught_up, busy = 0, False
    time.sleep(ctx.linger_seconds)  # the appends of this window join the first batch
    while True:
        taken = lanes.take(lane)
        if not taken.matches:
            busy = False
            idle_worker_wanted = taken.catch_ups_waiting or taken.rebuilds_waiting
            if patience_seconds > 0 and not idle_worker_wanted and time.monotonic() < deadline \
                    and lanes.wait(lane, patience_seconds):
                time.sleep(ctx.linger_seconds)  # woken by a request: let the next ones join it
                continue
            return caught_up + _give_up(lane, lanes, ctx)
        caught_up += _catch_up_all(taken.matches, ctx)
        if taken.catch_ups_waiting or time.monotonic() > deadline:
            if taken.rebuilds_waiting and not taken.catch_ups_waiting:
                return caught_up + _give_up(lane, lanes, ctx)
            enqueue_drain(lanes.queue, lane)  # still armed: the next job carries on
            return caught_up
        if busy:  # requests keep coming while batches are caught up: gather more per batch
            time.sleep(ctx.busy_linger_seconds)
        busy = True


def _give_up(lane: int, lanes: CatchUpLanes, ctx: ProjectorContext) -> int:
    """Disarm the lane and catch up what it still holds; requests from now on queue a new job."""
    return _catch_up_all(lanes.disarm_and_take(lane), ctx)


def _catch_up_all(match_ids: list[str], ctx: ProjectorContext) -> int:
    return sum(_catch_up_one(match_id, ctx) for match_id in match_ids)


def _ids(members: list[bytes]) -> list[str]:
    return [member.decode() for member in members]


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
