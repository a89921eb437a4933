"""Real projector worker processes on a real redis-server: jobs, sweeps, kill -9, two workers."""

from __future__ import annotations

import random
import signal

import redis
from rq import Queue

from services.api.catch_up_requests import enqueue_catch_up
from services.projector.catchup.catching_up import fresh_views
from services.projector.catchup.projector_context import ProjectorContext
from services.projector.rebuild.match_rebuilds import rebuild_match
from shared.codec import encode
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels
from tests.integration.projector.support import PLAYERS, StartWorker, players_of
from tests.projector_support import append_in_batches, random_match, read_model_snapshot, wipe_read_models
from tests.waiting import wait_until

PLAYER_IDS = [player_id for player_id, _ in PLAYERS]


def store_varied_matches(store: RedisEventStore, count: int, queue: Queue | None = None) -> dict[str, int]:
    """Append ``count`` random matches (seeds reused, players varied); enqueue if given a queue."""
    final_versions = {}
    for n in range(count):
        match_id = f"m{n}"
        events = random_match(n % 20, match_id, players_of(n))
        if queue is None:
            append_in_batches(store, match_id, events, random.Random(n))
        else:
            for position, event in enumerate(events):  # append, then queue a catch-up job
                store.append(match_id, [encode(event)], position)
                enqueue_catch_up(queue, match_id)
        final_versions[match_id] = len(events)
    return final_versions


def all_projected(store: RedisEventStore, readmodels: ReadModels, versions: dict[str, int]) -> bool:
    done = all(readmodels.projected_version(m) == v for m, v in versions.items())
    return done and not any(True for _ in store.unprojected())


def settled(store: RedisEventStore, readmodels: ReadModels, versions: dict[str, int], queue: Queue) -> bool:
    """All projected, and no job left queued or running: a straggler must not write after we look."""
    idle = not queue.count and not queue.started_job_registry.count
    return idle and all_projected(store, readmodels, versions)


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
    versions = store_varied_matches(store, 3, queue)
    wait_until(lambda: all_projected(store, readmodels, versions), what="the jobs")
    for match_id in versions:
        expected = fresh_views(store, match_id)
        assert readmodels.view(match_id, "A") == expected.views["A"]
        assert readmodels.summary(match_id) == expected.summary
    assert readmodels.lag(store) == 0


def test_matches_whose_job_was_lost_are_swept_at_start_and_then_periodically(
    store: RedisEventStore, readmodels: ReadModels, queue: Queue, start_worker: StartWorker,
) -> None:
    versions = store_varied_matches(store, 4)  # appended without enqueue
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
    versions = store_varied_matches(store, 150)
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
    versions = store_varied_matches(store, 8, queue)
    wait_until(lambda: settled(store, readmodels, versions, queue), what="both workers")
    assert_each_finished_match_counted_once(readmodels, len(versions))
    assert_equal_to_a_clean_rebuild(redis_client, store, list(versions))


def test_sigterm_stops_an_idle_worker_cleanly(start_worker: StartWorker) -> None:
    process = start_worker()
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=10) == 0
