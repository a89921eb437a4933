"""Fixtures of the projector's integration tests: real redis-server, real worker processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from rq import Queue, Worker

from services.api.catch_up_requests import catch_up_queue
from services.embedded_redis import EmbeddedRedis
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels
from tests.integration.projector.support import NO_PERIODIC_SWEEP, QUEUE_NAME, REPO, StartWorker
from tests.waiting import wait_until


@pytest.fixture
def store(redis_client: redis.Redis) -> RedisEventStore:
    return RedisEventStore(redis_client)


@pytest.fixture
def readmodels(redis_client: redis.Redis) -> ReadModels:
    return ReadModels(redis_client)


@pytest.fixture
def queue(redis_client: redis.Redis) -> Queue:
    return catch_up_queue(redis_client, QUEUE_NAME)


@pytest.fixture
def start_worker(
    redis_server: EmbeddedRedis, queue: Queue, tmp_path: Path,
) -> Iterator[StartWorker]:
    """Start ``python -m services.projector`` processes; SIGTERM them at the end."""
    started: list[subprocess.Popen] = []

    def start(sweep_seconds: int = NO_PERIODIC_SWEEP, wait_idle: bool = True) -> subprocess.Popen:
        env = {**os.environ, "REDIS_URL": redis_server.url, "QUEUE_URL": redis_server.url,
               "SWEEP_SECONDS": str(sweep_seconds), "DATA_DIR": str(tmp_path)}
        log = open(tmp_path / f"worker-{len(started)}.log", "wb")
        process = subprocess.Popen(
            [sys.executable, "-m", "services.projector"],
            cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
        )
        log.close()
        started.append(process)
        if wait_idle:  # registered, and its sweep at start is done
            wait_until(lambda: _idle_workers(queue) >= _alive(started), what="the worker to be idle")
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    for process in started:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _alive(processes: list[subprocess.Popen]) -> int:
    return sum(process.poll() is None for process in processes)


def _idle_workers(queue: Queue) -> int:
    return sum(worker.get_state() == "idle" for worker in Worker.all(queue=queue))
