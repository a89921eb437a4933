"""``python -m services.projector.worker``: a projector worker.

It runs the catch-up jobs of ``Config.queue_name`` on ``Config.queue_url``, then, when
that queue is empty, the jobs of a rebuild (its ``-rebuild`` queue); at start and every
``Config.sweep_seconds``, it sweeps: every match still carrying the
"unprojected" mark (its job was lost, or failed) is caught up inline. SIGTERM or SIGINT
stops it after the current job (RQ's warm shutdown); a second one stops it at once.
"""

from __future__ import annotations

import time
from typing import Any

import redis
from rq import SimpleWorker
from rq.exceptions import StopRequested

from services.projector.jobs import ProjectorContext, catch_up, current_context
from services.projector.queue import catch_up_queue, rebuild_queue
from shared.config import Config
from shared.connect import connect, wait_until_reachable

# RQ 3 blocks on the queue for ``worker_ttl - 15`` seconds between maintenance checks.
_RQ_DEQUEUE_MARGIN = 15


class ProjectorWorker(SimpleWorker):
    """An RQ worker that runs jobs in its own process and sweeps for unprojected matches.

    A ``SimpleWorker`` (no fork per job) on purpose: catch-up jobs are short and
    idempotent, so a job that dies with the worker is simply redone, and the fold
    cache of the process survives between jobs (a forked child would lose it).
    The sweep is hooked into RQ's maintenance, which runs at start and every
    ``maintenance_interval`` seconds.
    """

    def __init__(self, *args: Any, context: ProjectorContext | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._context = context

    def run_maintenance_tasks(self) -> None:
        """RQ's registry cleaning, then the sweep."""
        super().run_maintenance_tasks()
        self.sweep()

    def sweep(self) -> int:
        """Catch up every match carrying the unprojected mark; the number caught up."""
        started = time.monotonic()
        caught_up = failed = 0
        try:
            context = self._context or current_context()
            for match_id in context.store.unprojected():
                try:
                    catch_up(match_id, context)
                    caught_up += 1
                except StopRequested:
                    raise  # SIGTERM during the sweep: stop now, the next sweep redoes the rest
                except Exception:
                    failed += 1
                    self.log.exception("Sweep: catching up match %s failed", match_id)
        except redis.exceptions.RedisError as error:
            # Keep the worker alive: the next sweep tries again.
            self.log.warning("Sweep: interrupted by a Redis error: %s", error)
        if caught_up or failed:
            self.log.info(
                "Sweep: caught up %d unprojected match(es), %d failed, in %.0f ms",
                caught_up, failed, (time.monotonic() - started) * 1000,
            )
        return caught_up


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
        context=context,
    )


def main() -> None:
    """Run one worker until SIGTERM/SIGINT (started beside its Redis, it waits for it first)."""
    config = Config.from_env()
    wait_until_reachable(connect(config.redis_url))
    wait_until_reachable(connect(config.queue_url))
    build_worker(config).work(logging_level="INFO")


if __name__ == "__main__":
    main()
