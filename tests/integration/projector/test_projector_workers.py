"""Real projector worker processes on a real redis-server: jobs, sweeps, kill -9, two workers."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from rq import Queue, Worker

from services.embedded_redis import EmbeddedRedis
from services.projector.jobs import ProjectorContext, fresh_views, rebuild_match
from services.projector.queue import catch_up_queue, enqueue_catch_up
from shared.codec import encode
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels
from tests.projector_support import (
    append_in_batches,
    random_match,
    read_model_snapshot,
    wipe_read_models,
)

REPO = Path(__file__).resolve().parents[3]
QUEUE_NAME = "projector"
PLAYERS = [("p1", "alice"), ("p2", "bob"), ("p3", "carol"), ("p4", "dave")]
PLAYER_IDS = [player_id for player_id, _ in PLAYERS]
NO_PERIODIC_SWEEP = 300  # seconds: only the sweep at start happens during a test

StartWorker = Callable[..., subprocess.Popen]


def wait_until(condition: Callable[[], bool], timeout: float = 10.0, what: str = "condition") -> None:
    """Poll ``condition`` every 10 ms until it holds; fail the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.01)


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
    """Start ``python -m services.projector.worker`` processes; SIGTERM them at the end."""
    started: list[subprocess.Popen] = []

    def start(sweep_seconds: int = NO_PERIODIC_SWEEP, wait_idle: bool = True) -> subprocess.Popen:
        env = {**os.environ, "REDIS_URL": redis_server.url, "QUEUE_URL": redis_server.url,
               "SWEEP_SECONDS": str(sweep_seconds), "DATA_DIR": str(tmp_path)}
        log = open(tmp_path / f"worker-{len(started)}.log", "wb")
        process = subprocess.Popen(
            [sys.executable, "-m", "services.projector.worker"],
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


def players_of(n: int) -> tuple[tuple[str, str], tuple[str, str]]:
    first, second = random.Random(n).sample(PLAYERS, 2)
    return first, second


def store_matches(store: RedisEventStore, count: int, queue: Queue | None = None) -> dict[str, int]:
    """Append ``count`` random matches (seeds reused, players varied); enqueue if given a queue."""
    final_versions = {}
    for n in range(count):
        match_id = f"m{n}"
        events = random_match(n % 20, match_id, players_of(n))
        if queue is None:
            append_in_batches(store, match_id, events, random.Random(n))
        else:
            for position, event in enumerate(events):  # as the API does: append, then enqueue
                store.append(match_id, [encode(event)], position)
                enqueue_catch_up(queue, match_id)
        final_versions[match_id] = len(events)
    return final_versions


def all_projected(store: RedisEventStore, readmodels: ReadModels, versions: dict[str, int]) -> bool:
    done = all(readmodels.projected_version(m) == v for m, v in versions.items())
    return done and not any(True for _ in store.unprojected())


def assert_equal_to_a_clean_rebuild(
    client: redis.Redis, store: RedisEventStore, match_ids: list[str],
) -> None:
    projected = read_model_snapshot(client, match_ids, PLAYER_IDS)
    wipe_read_models(client, match_ids, PLAYER_IDS)
    clean = ProjectorContext(store, ReadModels(client))
    for match_id in match_ids:
        rebuild_match(match_id, clean)
    assert read_model_snapshot(client, match_ids, PLAYER_IDS) == projected


def assert_each_finished_match_counted_once(readmodels: ReadModels, count: int) -> None:
    board = readmodels.scoreboard(limit=100)
    assert board["version"] == count
    played = {pid: sum(pid in (a[0], b[0]) for a, b in map(players_of, range(count))) for pid in PLAYER_IDS}
    assert {row["id"]: row["matches_played"] for row in board["players"]} == played


def test_enqueued_jobs_make_the_read_models_appear(
    store: RedisEventStore, readmodels: ReadModels, queue: Queue, start_worker: StartWorker,
) -> None:
    start_worker()
    versions = store_matches(store, 3, queue)
    wait_until(lambda: all_projected(store, readmodels, versions), what="the jobs")
    for match_id in versions:
        expected = fresh_views(store, match_id)
        assert readmodels.view(match_id, "A") == expected.views["A"]
        assert readmodels.summary(match_id) == expected.summary
    assert readmodels.lag(store) == 0


def test_matches_whose_job_was_lost_are_swept_at_start_and_then_periodically(
    store: RedisEventStore, readmodels: ReadModels, queue: Queue, start_worker: StartWorker,
) -> None:
    versions = store_matches(store, 4)  # appended without enqueue
    enqueue_catch_up(queue, "m0")
    queue.empty()  # ...and a job that was enqueued is flushed away
    start_worker(sweep_seconds=1)
    assert all_projected(store, readmodels, versions)  # the sweep at start did it all

    later = {"m9": len(random_match(9, "m9", players_of(9)))}
    append_in_batches(store, "m9", random_match(9, "m9", players_of(9)), random.Random(9))
    wait_until(lambda: all_projected(store, readmodels, later), timeout=5, what="the periodic sweep")


def test_a_worker_killed_mid_catch_up_is_restarted_and_counts_each_match_once(
    redis_client: redis.Redis, store: RedisEventStore, readmodels: ReadModels,
    start_worker: StartWorker,
) -> None:
    versions = store_matches(store, 150)
    first = start_worker(sweep_seconds=1, wait_idle=False)
    wait_until(lambda: readmodels.scoreboard()["version"] >= 10, what="the sweep to start")
    first.kill()  # SIGKILL: no cleanup at all, somewhere inside a catch-up
    first.wait()
    assert not all_projected(store, readmodels, versions), "the worker finished before the kill"

    start_worker(sweep_seconds=1)
    wait_until(lambda: all_projected(store, readmodels, versions), what="the restarted worker")
    assert readmodels.lag(store) == 0
    assert_each_finished_match_counted_once(readmodels, len(versions))
    assert_equal_to_a_clean_rebuild(redis_client, store, list(versions))


def test_two_workers_on_the_same_matches_give_the_same_result(
    redis_client: redis.Redis, store: RedisEventStore, readmodels: ReadModels, queue: Queue,
    start_worker: StartWorker,
) -> None:
    start_worker()
    start_worker()
    versions = store_matches(store, 8, queue)
    wait_until(lambda: all_projected(store, readmodels, versions), what="both workers")
    assert_each_finished_match_counted_once(readmodels, len(versions))
    assert_equal_to_a_clean_rebuild(redis_client, store, list(versions))


def test_sigterm_stops_an_idle_worker_cleanly(start_worker: StartWorker) -> None:
    process = start_worker()
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=10) == 0
