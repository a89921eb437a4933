"""The drain job: one lane's matches caught up in batches (the lanes: :mod:`services.projector.lanes`).

The drain keeps its lane armed, takes its matches in batches and catches each up.
A drain lingers a few milliseconds before its first batch (``ProjectorContext.linger_seconds``,
from ``CATCH_UP_LINGER_MS``): the appends of that window join it, and a match that moved
twice meanwhile is folded and written once. It costs the read models that much lag. When
its lane runs empty the drain does not leave at once, since under steady play the next
request is a few milliseconds away: it blocks on the lane's wake list (a request to an
armed lane pushes to it) for up to ``PATIENCE_SECONDS`` and lingers again when woken. It
waits only while no other job waits for a worker; then it disarms the lane and looks once
more (a match added just before that found the lane armed and queued nothing). A lane
whose requests keep coming while batches are caught up is busy: there the drain lingers
again between batches, and longer (``busy_linger_seconds``, ``CATCH_UP_BUSY_LINGER_MS``)
when the last batch found its matches moved by ``RICH_BATCH`` events or more each, so each
catch-up folds more appends where that saves work, and a lane of matches that move once
per batch keeps its lag short. Under load one job serves a lane for its whole budget; idle,
each append still gets a job of its own. A drain never keeps a worker another job waits
for: behind another lane's waiting drain it queues a successor for its own lane (so lanes
take turns when workers are fewer), and for a waiting rebuild job it gives its lane up.

The lane count follows the live workers (:mod:`shared.catch_up_lanes`), so a backlog may sit in
fewer lanes than there are workers now (filed while fewer ran), or in a lane past the
count. A drain that finds more than a batch left behind its first one spreads its lane:
each match goes to its lane under the current count, whose drain is queued. And a worker's
maintenance arms again every lane that holds requests and no job (:meth:`CatchUpLanes.adopt`):
a request is never left in a lane nobody drains.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import redis
from rq import Queue, get_current_job

from services.projector.catchup.catching_up import catch_up
from services.projector.catchup.projector_context import ProjectorContext
from services.projector.jobs import current_context
from services.projector.lanes import BATCH, CatchUpLanes, Taken

BUDGET_SECONDS = 1.0  # then a fresh job carries on (the lane stays armed), so none runs long
PATIENCE_SECONDS = 0.05  # an empty lane is waited on this long before its drain gives the worker back
# Events per match a busy lane's batch must fold, at least, before its drain lingers the long
# linger: about two moves (a move records 1.9 events on average: a card, then a trick won...).
RICH_BATCH = 4

log = logging.getLogger(__name__)


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
    run = _Drain(lane, lanes or _lanes_of_this_job(), context or current_context(),
                 time.monotonic() + budget_seconds, patience_seconds)
    time.sleep(run.ctx.linger_seconds)  # the appends of this window join the first batch
    while run.step():
        pass
    return run.caught_up


@dataclass
class _Drain:
    """One drain job's run over its lane: each ``step`` takes a batch and says whether to go on."""

    lane: int
    lanes: CatchUpLanes
    ctx: ProjectorContext
    deadline: float  # time.monotonic() when its budget ends
    patience_seconds: float
    caught_up: int = 0
    busy: bool = False  # the last batch was not the lane's first since it was empty
    spread: bool = False  # this run shared a backlog out already

    def step(self) -> bool:
        """Catch the next batch up; False once the lane is handed on or given up."""
        taken = self._take()
        if not taken.matches:
            return self._wait_for_requests(taken)
        batch, moved = _catch_up_batch(taken.matches, self.ctx)
        self.caught_up += batch
        if taken.catch_ups_waiting or time.monotonic() > self.deadline:
            self._hand_on(taken)
            return False
        if self.busy and not taken.left:  # requests keep coming while batches are caught up: gather more per batch
            time.sleep(_busy_linger(self.ctx, moved, len(taken.matches)))
        self.busy = True
        return True

    def _take(self) -> Taken:
        taken = self.lanes.take(self.lane)
        if taken.left >= BATCH and not self.spread:  # a backlog: share it with the lanes of other workers
            self.lanes.spread(self.lane)
            self.spread = True
        return taken

    def _wait_for_requests(self, taken: Taken) -> bool:
        """The lane ran empty: True if a request came within the patience; else the lane is given up."""
        self.busy = False
        idle_worker_wanted = taken.catch_ups_waiting or taken.rebuilds_waiting
        if self.patience_seconds > 0 and not idle_worker_wanted and time.monotonic() < self.deadline \
                and self.lanes.wait(self.lane, self.patience_seconds):
            time.sleep(self.ctx.linger_seconds)  # woken by a request: let the next ones join it
            return True
        self.caught_up += _give_up(self.lane, self.lanes, self.ctx)
        return False

    def _hand_on(self, taken: Taken) -> None:
        """Out of budget, or another lane's drain waits: a successor carries the lane on, or a
        waiting rebuild gets the worker (the lane is given up)."""
        if taken.rebuilds_waiting and not taken.catch_ups_waiting:
            self.caught_up += _give_up(self.lane, self.lanes, self.ctx)
        else:
            self.lanes.queue_drain(self.lane)  # still armed: the next job carries on


def _give_up(lane: int, lanes: CatchUpLanes, ctx: ProjectorContext) -> int:
    """Disarm the lane and catch up what it still holds; requests from now on queue a new job."""
    return _catch_up_all(lanes.disarm_and_take(lane), ctx)


def _catch_up_batch(match_ids: list[str], ctx: ProjectorContext) -> tuple[int, int]:
    """Catch each match up: how many were, and by how many events they moved (as this worker saw them)."""
    before = _versions(match_ids, ctx)
    return _catch_up_all(match_ids, ctx), _versions(match_ids, ctx) - before


def _busy_linger(ctx: ProjectorContext, moved: int, matches: int) -> float:
    """The long linger only where it pays: when the batch's matches moved by ``RICH_BATCH`` events or more each."""
    return ctx.busy_linger_seconds if moved >= RICH_BATCH * matches else ctx.linger_seconds


def _versions(match_ids: list[str], ctx: ProjectorContext) -> int:
    """The versions this worker last folded the matches to, summed (what a batch moved them by, after minus before)."""
    return sum(folded.version for match_id in match_ids if (folded := ctx.cache.get(match_id)) is not None)


def _catch_up_all(match_ids: list[str], ctx: ProjectorContext) -> int:
    return sum(_catch_up_one(match_id, ctx) for match_id in match_ids)


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
