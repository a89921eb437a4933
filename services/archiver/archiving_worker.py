"""An archiver worker (``python -m services.archiver``): RQ jobs of the archivers' queue, and a sweep.

At start and every ``sweep_interval`` seconds (``SWEEP_SECONDS``, or ``ARCHIVE_AFTER`` if
shorter), its maintenance reads the matches due from the due list (a sorted set by end time:
no scan) and queues one ``archive`` job for each not queued yet; the archivers share the
jobs. Two archivers on one match are harmless: the archive's put is idempotent and the
leave step atomic (the second finds it archived). An archive that cannot be reached fails
the job's attempt only: the match stays whole in Redis and due, and the next sweep queues it
again. Like the projector's, it outlives Redis: a work loop lost with it is started again.
"""
from __future__ import annotations

import logging
from typing import Any

import redis
from rq import Queue

from services.archiver.archive_jobs import ArchiverJob, current_archiver
from services.prompt_workers import PromptlyStoppingWorker
from shared import job_names
from shared.config import Config
from shared.connect import connect, wait_until_reachable
from shared.observability import logs

SWEEP_BATCH = 500  # due matches queued per sweep at most: the rest wait for the next
_RQ_DEQUEUE_MARGIN = 15  # RQ 3 blocks on the queue for ``worker_ttl - 15`` seconds between maintenance checks

log = logging.getLogger(__name__)


def archive_queue(connection: Any, catch_up_queue_name: str) -> Queue:
    """The archivers' queue, named after the projector's catch-up queue (``-archive``)."""
    return Queue(job_names.archive_queue_name(catch_up_queue_name), connection=connection, job_class=ArchiverJob)


def job_id(match_id: str) -> str:
    """One job id per match: a match already queued is not queued twice."""
    return f"archive-{match_id}"


def queue_due(queue: Queue, match_ids: list[str]) -> int:
    """Queue an ``archive`` job for each match whose job is not in the queue; how many were queued.

    A job shown started, or queued yet in no queue (a worker died between taking it and
    starting it), may be a dead worker's: it is queued again (a second run is harmless).
    """
    queued, waiting = 0, set(queue.get_job_ids())
    for match_id in match_ids:
        if job_id(match_id) in waiting:
            continue
        queue.enqueue(job_names.ARCHIVE, match_id, job_id=job_id(match_id), result_ttl=0,
                      job_timeout=job_names.ARCHIVE_JOB_TIMEOUT_SECONDS, failure_ttl=job_names.FAILURE_TTL_SECONDS,
                      description=f"archive match {match_id}")
        queued += 1
    return queued


class ArchiverWorker(PromptlyStoppingWorker):
    """An RQ worker (no fork per job: the archiver and its connections live on) that sweeps for due matches."""

    max_connection_wait_time = 2.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stop_asked = False

    def request_stop(self, signum: int, frame: Any) -> None:
        """RQ's warm shutdown, remembered: ``main`` must not start another loop after it."""
        self.stop_asked = True
        super().request_stop(signum, frame)

    def run_maintenance_tasks(self) -> None:
        """RQ's registry cleaning, then the sweep."""
        super().run_maintenance_tasks()
        try:
            queued = queue_due(self.queues[0], current_archiver().due(SWEEP_BATCH))
        except redis.exceptions.RedisError as error:
            self.log.warning("Archive sweep: interrupted by a Redis error: %s", error)
            return
        if queued:
            self.log.info("Archive sweep: queued %d finished match(es) for the archive", queued)


def sweep_interval(config: Config) -> int:
    """How often the sweep runs: ``SWEEP_SECONDS``, or ``ARCHIVE_AFTER`` when that is shorter."""
    return max(1, min(config.sweep_seconds, config.archive_after))


def build_worker(config: Config, connection: Any = None) -> ArchiverWorker:
    """A worker of ``config``'s archive queue; ``connection`` defaults to ``config.queue_url``."""
    connection = connection or connect(config.queue_url)
    interval = sweep_interval(config)
    return ArchiverWorker([archive_queue(connection, config.queue_name)], connection=connection,
                          maintenance_interval=interval, worker_ttl=max(1, interval // 2) + _RQ_DEQUEUE_MARGIN,
                          job_class=ArchiverJob)


def main() -> None:
    """Run until SIGTERM/SIGINT, outliving Redis outages."""
    config = Config.from_env()
    logs.setup(config.log_format, config.log_level, service="archiver")
    wait_until_reachable(connect(config.redis_url))
    wait_until_reachable(connect(config.queue_url))
    while True:
        worker = build_worker(config)
        try:
            worker.work(logging_level="INFO")
        except redis.exceptions.RedisError as error:
            log.warning("Archiver %s: ended without Redis: %s", worker.name, error)
        if worker.stop_asked:
            return
        wait_until_reachable(connect(config.redis_url))
        wait_until_reachable(connect(config.queue_url))
