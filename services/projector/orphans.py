"""Jobs orphaned by a worker that died mid-job (SIGKILL, out of memory) are queued again.

RQ notices such a job only when its execution's heartbeat expires (90 s for ours), and
then fails it. For a catch-up that costs nothing (the match keeps its mark and the sweep
redoes it), but a rebuild waits for every one of its jobs: one dead worker would stall it
until it gives up. Every job of the projector is idempotent, so the sweep simply queues
an orphan again, at the front, as soon as its worker is known to be dead:

- its worker is no longer registered (its registration expired), or
- it ran on this host and its process is gone.

A live worker is never taken for dead: a worker of another host counts as alive until
its registration expires, and a reused pid only delays the rescue.

A job lost between its queue and its worker is found by whoever waits for it
(:func:`services.projector.queues.lost_jobs`).
"""

from __future__ import annotations

import os
import socket

from rq import Queue, Worker
from rq.exceptions import NoSuchJobError
from rq.executions import Execution
from rq.job import Job


def rescue_orphans(queues: list[Queue]) -> list[str]:
    """Queue again the jobs of ``queues`` whose worker died while running them; their ids."""
    rescued = []
    for queue in queues:
        registry = queue.started_job_registry
        for job_id, execution_id in registry.get_job_and_execution_ids(cleanup=False):
            try:
                execution = Execution.fetch(execution_id, job_id, queue.connection)
            except ValueError:  # the execution ended meanwhile
                continue
            if not _dead(execution.worker_name, queue):
                continue
            # Only the rescuer that removes the entry requeues it: two sweeps cannot both.
            if queue.connection.zrem(registry.key, execution.composite_key):
                try:
                    job = Job.fetch(job_id, connection=queue.connection)
                except NoSuchJobError:
                    continue
                queue.enqueue_job(job, at_front=True)
                rescued.append(job_id)
    return rescued


def _dead(worker_name: str, queue: Queue) -> bool:
    if not worker_name:
        return False
    worker = Worker.find_by_key(Worker.redis_worker_namespace_prefix + worker_name, connection=queue.connection)
    if worker is None:
        return True  # registration expired: it stopped heartbeating long ago
    return worker.hostname == socket.gethostname() and worker.pid is not None and not _running(worker.pid)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process now holds that pid
    return True
