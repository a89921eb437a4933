"""A projector worker (``python -m services.projector``).

It runs the catch-up jobs of ``Config.queue_name`` on ``Config.queue_url``, then, when
that queue is empty, the jobs of a rebuild (its ``-rebuild`` queue); at start and every
``Config.sweep_seconds``, it sweeps: every match still carrying the
"unprojected" mark (its job was lost, or failed) is caught up inline, except parked
matches (see :mod:`shared.readmodels.parked`) whose stream has not grown since. SIGTERM
or SIGINT stops it after the current job (RQ's warm shutdown); a second one stops it at once.

Jobs a dead worker left half done are queued again (see :mod:`services.projector.orphans`).
It outlives Redis: RQ's work loop quits on a lost connection (its heartbeat is outside
its retry), so ``main`` waits for Redis to answer again and starts a fresh worker. Jobs
that died with the connection are redone by the sweep (their matches keep their mark).
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from types import FrameType
from typing import Any

import redis
from rq.exceptions import StopRequested

from services.projector.catchup.projector_context import ProjectorContext
from services.projector.job_table import ProjectorJob
from services.projector.jobs import catch_up, current_context
from services.projector.lanes import adopt_lanes
from services.projector.orphans import rescue_orphans
from services.projector.queues import catch_up_queue, rebuild_queue
from services.prompt_workers import PromptlyStoppingWorker
from shared.config import Config
from shared.connect import connect, wait_until_reachable
from shared.observability import exposition, logs
from shared.readmodels.parked import ParkedMatch
from shared.readmodels.port import ParkedRegistry

# RQ 3 blocks on the queue for ``worker_ttl - 15`` seconds between maintenance checks.
_RQ_DEQUEUE_MARGIN = 15
_REDIS_POLL_SECONDS = 0.2  # how often a worker whose Redis went away checks for it
_RESTART_PAUSE_SECONDS = 1.0  # between two work loops: a loop that keeps failing cannot spin

log = logging.getLogger(__name__)


class ProjectorWorker(PromptlyStoppingWorker):
    """An RQ worker that runs jobs in its own process and sweeps for unprojected matches.

    A ``SimpleWorker`` (no fork per job) on purpose: catch-up jobs are short and
    idempotent, so a job that dies with the worker is simply redone, and the fold
    cache of the process survives between jobs (a forked child would lose it).
    The sweep is hooked into RQ's maintenance, which runs at start and every
    ``maintenance_interval`` seconds.
    """

    max_connection_wait_time = 2.0  # RQ backs off up to 60 s while Redis is down; recover sooner

    def __init__(self, *args: Any, context: ProjectorContext | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._context = context
        self.stop_asked = False  # SIGTERM/SIGINT, as opposed to a work loop that died with Redis

    def request_stop(self, signum: int, frame: FrameType | None) -> None:
        """RQ's warm shutdown, remembered: ``main`` must not start another loop after it."""
        self.stop_asked = True
        super().request_stop(signum, frame)

    def run_maintenance_tasks(self) -> None:
        """RQ's registry cleaning, the rescue of jobs orphaned by dead workers and of lanes
        nobody drains, then the sweep."""
        super().run_maintenance_tasks()
        try:
            adopt_lanes(self.queues[0])
            rescued = rescue_orphans(self.queues)
        except redis.exceptions.RedisError as error:
            self.log.warning("Rescue of orphaned jobs interrupted by a Redis error: %s", error)
        else:
            if rescued:
                self.log.warning("Queued again %d job(s) whose worker died: %s", len(rescued), ", ".join(rescued))
        self.sweep()

    def sweep(self) -> int:
        """Catch up every match carrying the unprojected mark; the number caught up.

        A parked match is retried only once its stream has grown (a new event may come
        with a fix, and a job for it ran anyway); records of matches that got past their
        poison are forgotten.
        """
        started = time.monotonic()
        counts = {"caught up": 0, "failed": 0, "parked": 0, "left parked": 0}
        try:
            context = self._context or current_context()
            registry = context.readmodels.parked
            parked = registry.all()
            for match_id in context.store.unprojected():
                counts[self._sweep_one(match_id, context, registry, parked)] += 1
            if parked:
                registry.forget_passed(context.readmodels)
            context.readmodels.ratings().settle()  # rated results a folder that died left waiting
        except redis.exceptions.RedisError as error:
            # Keep the worker alive: the next sweep tries again.
            self.log.warning("Sweep: interrupted by a Redis error: %s", error)
        if counts["caught up"] or counts["failed"] or counts["parked"]:
            self.log.info(
                "Sweep: caught up %d unprojected match(es), %d failed, %d parked, %d parked before left alone, "
                "in %.0f ms", *counts.values(), (time.monotonic() - started) * 1000,
            )
        return counts["caught up"]

    def _sweep_one(
        self, match_id: str, context: ProjectorContext, registry: ParkedRegistry, parked: dict[str, ParkedMatch],
    ) -> str:
        """Catch one marked match up; what became of it (a key of the sweep's counts)."""
        record = parked.get(match_id)
        if record is not None:
            if not record.retry_due(context.store.version(match_id)):
                return "left parked"
            registry.remove(match_id)  # retried below: parked again if it still fails
        try:
            catch_up(match_id, context)
        except StopRequested:
            raise  # SIGTERM during the sweep: stop now, the next sweep redoes the rest
        except Exception:
            self.log.exception("Sweep: catching up match %s failed", match_id)
            return "failed"
        return "caught up" if registry.get(match_id) is None else "parked"  # a parking job logged why


def worker_ttl_for(sweep_seconds: int) -> int:
    """A worker TTL whose blocking dequeue wakes up at least twice per sweep period."""
    dequeue_timeout = max(1, sweep_seconds // 2)
    return dequeue_timeout + _RQ_DEQUEUE_MARGIN


def build_worker(
    config: Config, connection: Any = None, context: ProjectorContext | None = None,
) -> ProjectorWorker:
    """A worker for ``config``'s queues; ``connection`` defaults to ``config.queue_url``.

    The catch-up queue comes first: RQ serves queues in order, so live play keeps its
    latency while a rebuild's jobs wait for idle moments.
    """
    connection = connection or connect(config.queue_url)
    return ProjectorWorker(
        [catch_up_queue(connection, config.queue_name), rebuild_queue(connection, config.queue_name)],
        connection=connection,
        maintenance_interval=config.sweep_seconds,
        worker_ttl=worker_ttl_for(config.sweep_seconds),
        job_class=ProjectorJob,
        context=context,
    )


def main() -> None:
    """Run until SIGTERM/SIGINT (started beside its Redis, it waits for it first), outliving outages."""
    config = Config.from_env()
    logs.setup(config.log_format, config.log_level, service="projector")
    wait_until_reachable(connect(config.redis_url))
    wait_until_reachable(connect(config.queue_url))
    if config.metrics:  # catch-up times and outcomes, on this worker's own port (or the next free one)
        exposition.serve(config.host, config.metrics_port)
    while True:
        worker = build_worker(config)
        try:
            worker.work(logging_level="INFO")
        except redis.exceptions.RedisError as error:  # RQ's teardown could not reach Redis either
            log.warning("Worker %s: ended without Redis: %s", worker.name, error)
        if worker.stop_asked or not wait_for_redis(config):
            return
        log.warning("Redis answers again: starting a new work loop")


def wait_for_redis(config: Config) -> bool:
    """Block until both Redis servers answer PING; False if SIGTERM or SIGINT came first."""
    stop = threading.Event()

    def stop_waiting(signum: int, frame: FrameType | None) -> None:
        stop.set()

    # RQ's handlers would ask the dead Redis for the worker's state: ours only stop.
    signal.signal(signal.SIGTERM, stop_waiting)
    signal.signal(signal.SIGINT, stop_waiting)
    clients = [connect(config.redis_url), connect(config.queue_url)]
    if stop.wait(_RESTART_PAUSE_SECONDS):
        return False
    while True:
        try:
            for client in clients:
                client.ping()
            return True
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, redis.exceptions.BusyLoadingError):
            if stop.wait(_REDIS_POLL_SECONDS):
                return False
