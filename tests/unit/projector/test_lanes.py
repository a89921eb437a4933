"""Catch-up lanes: appends share drain jobs, and no requested catch-up is left behind."""

from __future__ import annotations

import threading
import time

import fakeredis
import pytest
from rq import SimpleWorker

from services.projector import drain as drain_module
from services.projector import lanes as lanes_module
from services.projector.catchup.catching_up import fresh_views
from services.projector.catchup.projector_context import ProjectorContext
from services.projector.drain import drain
from services.projector.job_table import ProjectorJob
from services.projector.jobs import catch_up
from services.projector.lanes import CatchUpLanes
from services.projector.queues import catch_up_queue, enqueue_drain, rebuild_queue
from shared.codec import encode
from shared.eventstore import RedisEventStore
from shared.fold import fold_up_to
from shared.job_names import DRAIN as DRAIN_JOB
from shared.readmodels import ReadModels
from tests.projector_support import random_match, store_matches

time_sleep = time.sleep  # the real one, for fakes that record naps and still take them


@pytest.fixture
def lanes(fake_redis: fakeredis.FakeRedis) -> CatchUpLanes:
    return CatchUpLanes(catch_up_queue(fake_redis, "projector"), count=2)


@pytest.fixture
def one_lane(lanes: CatchUpLanes) -> CatchUpLanes:
    """The same queue's lanes as one lane: every match goes to lane 0."""
    return CatchUpLanes(lanes.queue, count=1)


def one_match_per_batch(lanes: CatchUpLanes, monkeypatch: pytest.MonkeyPatch) -> None:
    real_take = lanes.take
    monkeypatch.setattr(lanes, "take", lambda lane, count=1: real_take(lane, 1))


def test_only_the_first_request_of_an_idle_lane_queues_a_drain_job(lanes: CatchUpLanes) -> None:
    match_ids = [f"m{n}" for n in range(20)]
    queued = [lanes.request(match_id) for match_id in match_ids]
    assert sum(queued) == 2  # one per lane
    jobs = lanes.queue.get_jobs()
    assert sorted(job.args for job in jobs) == [(0,), (1,)]
    assert {job.func_name for job in jobs} == {DRAIN_JOB}
    assert lanes.waiting(0) + lanes.waiting(1) == 20
    assert {lanes.lane_of(match_id) for match_id in match_ids} == {0, 1}


def test_a_drain_job_catches_up_every_match_of_its_lane_and_disarms_it(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, readmodels: ReadModels,
    process_context: ProjectorContext, lanes: CatchUpLanes,
) -> None:
    match_ids = store_matches(store, 6)
    for match_id in match_ids:
        lanes.request(match_id)
    assert SimpleWorker([lanes.queue], connection=fake_redis, job_class=ProjectorJob).work(burst=True)
    for match_id in match_ids:
        assert readmodels.summary(match_id) == fresh_views(store, match_id).summary
    assert list(store.unprojected()) == []
    assert lanes.waiting(0) == lanes.waiting(1) == 0
    assert lanes.request(match_ids[0])  # disarmed: the next request queues a job again


def test_a_match_added_while_the_lane_is_armed_is_drained_by_the_running_job(
    store: RedisEventStore, readmodels: ReadModels, context: ProjectorContext, one_lane: CatchUpLanes,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first, late = store_matches(store, 2)
    lanes = one_lane
    lanes.request(first)
    lanes.queue.empty()  # as a worker does: the drain job left the queue when it started
    real_disarm_and_take = lanes.disarm_and_take

    def disarm_after_a_late_request(lane: int) -> list[str]:
        if late not in seen:  # the late append arrives just before the lane is disarmed
            seen.add(late)
            assert not lanes.request(late)  # still armed: it queues no job of its own
        return real_disarm_and_take(lane)

    seen: set[str] = set()
    monkeypatch.setattr(lanes, "disarm_and_take", disarm_after_a_late_request)
    assert drain(0, lanes, context) == 2
    assert readmodels.summary(late) == fresh_views(store, late).summary
    assert lanes.queue.count == 0  # the late request queued no job of its own


def test_a_drain_past_its_budget_hands_over_to_a_new_job_and_keeps_the_lane_armed(
    store: RedisEventStore, context: ProjectorContext, one_lane: CatchUpLanes, monkeypatch: pytest.MonkeyPatch,
) -> None:
    lanes = one_lane
    match_ids = store_matches(store, 3)
    for match_id in match_ids:
        lanes.request(match_id)
    lanes.queue.empty()
    one_match_per_batch(lanes, monkeypatch)
    assert drain(0, lanes, context, budget_seconds=0) == 1
    assert [job.args for job in lanes.queue.get_jobs()] == [(0,)]
    assert not lanes.request("another")  # still armed
    assert lanes.waiting(0) == 3  # two left and the new one


def test_a_match_that_fails_is_left_to_the_sweep_and_the_others_are_caught_up(
    store: RedisEventStore, readmodels: ReadModels, context: ProjectorContext, one_lane: CatchUpLanes,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lanes = one_lane
    bad, good = store_matches(store, 2)
    real_catch_up = drain_module.catch_up

    def failing(match_id: str, ctx: ProjectorContext) -> int:
        if match_id == bad:
            raise ValueError("a bug in a view")
        return real_catch_up(match_id, ctx)

    monkeypatch.setattr(drain_module, "catch_up", failing)
    lanes.request(bad), lanes.request(good)
    lanes.queue.empty()  # as a worker does: the drain job left the queue when it started
    assert drain(0, lanes, context) == 1
    assert readmodels.summary(good) == fresh_views(store, good).summary
    assert list(store.unprojected()) == [bad]


def test_appends_during_the_linger_join_the_drain_and_a_match_is_written_once(
    store: RedisEventStore, readmodels: ReadModels, context: ProjectorContext, one_lane: CatchUpLanes,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lanes = one_lane
    events = random_match(3, "m")
    store.append("m", [encode(e) for e in events[:5]], 0)
    lanes.request("m")
    lanes.queue.empty()  # as a worker does: the drain job left the queue when it started
    context.linger_seconds = 0.01

    def appends_while_lingering(seconds: float) -> None:
        assert seconds == 0.01
        if store.version("m") == 5:
            store.append("m", [encode(e) for e in events[5:9]], 5)  # the same match moves on meanwhile
            lanes.request("m")

    monkeypatch.setattr(drain_module.time, "sleep", appends_while_lingering)
    writes = []
    monkeypatch.setattr(drain_module, "catch_up", lambda match_id, ctx: writes.append(catch_up(match_id, ctx)))
    assert drain(0, lanes, context) == 1
    assert writes == [9]  # folded and written once, with both appends
    assert readmodels.summary("m") == fresh_views(store, "m").summary


def test_a_drain_waiting_on_its_empty_lane_is_woken_by_the_next_request(
    store: RedisEventStore, readmodels: ReadModels, context: ProjectorContext, one_lane: CatchUpLanes,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lanes = one_lane
    first, later = store_matches(store, 2)
    assert lanes.request(first)
    lanes.queue.empty()
    late = threading.Timer(0.05, lambda: queued.append(lanes.request(later)))
    queued: list[bool] = []
    context.linger_seconds, context.busy_linger_seconds = 0.001, 0.5
    naps: list[float] = []
    monkeypatch.setattr(drain_module.time, "sleep", lambda seconds: naps.append(seconds) or time_sleep(seconds))
    woken: list[bool] = []
    real_wait = lanes.wait

    def wait(lane: int, seconds: float) -> bool:
        if not woken:
            late.start()  # the next request comes once the drain has caught up and waits, however slowly
        woken.append(real_wait(lane, seconds))
        return woken[-1]

    monkeypatch.setattr(lanes, "wait", wait)
    assert drain(0, lanes, context, patience_seconds=1.0) == 2
    late.join()
    assert queued == [False]  # the lane was armed: the waiting drain took it, no job of its own
    assert woken == [True, False]  # woken by the request, then waited its patience out
    assert naps == [0.001, 0.001]  # a quiet lane: the short linger at the start and after the wake-up
    assert readmodels.summary(later) == fresh_views(store, later).summary
    assert lanes.queue.count == 0 and lanes.waiting(0) == 0
    assert lanes.request(first)  # given up at last: disarmed


def test_a_drain_hands_its_lane_to_a_new_job_behind_another_lanes_waiting_drain(
    store: RedisEventStore, readmodels: ReadModels, context: ProjectorContext, lanes: CatchUpLanes,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first, second = store_matches(store, 2)
    lane = lanes.lane_of(first)
    lanes.request(first)
    lanes.queue.empty()
    enqueue_drain(lanes.queue, 1 - lane)  # another lane's drain waits for a worker
    monkeypatch.setattr(lanes, "wait", lambda lane, seconds: pytest.fail("a job waits: it must not wait"))
    assert drain(lane, lanes, context, patience_seconds=60) == 1  # the batch it took, then the hand-over
    assert readmodels.summary(first) == fresh_views(store, first).summary
    assert [job.args for job in lanes.queue.get_jobs()] == [(1 - lane,), (lane,)]  # its successor comes after
    assert not lanes.request(second) or lanes.lane_of(second) != lane  # its lane is still armed


def test_a_drain_gives_its_lane_up_when_a_rebuild_waits_so_the_worker_can_take_it(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, readmodels: ReadModels, context: ProjectorContext,
    one_lane: CatchUpLanes, monkeypatch: pytest.MonkeyPatch,
) -> None:
    lanes = one_lane
    match_ids = store_matches(store, 3)
    lanes.request(match_ids[0])
    lanes.queue.empty()
    rebuild_queue(fake_redis, "projector").enqueue("builtins.print")
    one_match_per_batch(lanes, monkeypatch)
    for match_id in match_ids[1:]:
        lanes.request(match_id)
    monkeypatch.setattr(lanes, "wait", lambda lane, seconds: pytest.fail("a job waits: it must not wait"))
    # Past its budget at the first batch: it catches up what the lane still holds and leaves,
    # queueing no successor, so the worker is free for the rebuild.
    assert drain(0, lanes, context, budget_seconds=0, patience_seconds=60) == 3
    assert lanes.queue.count == 0
    assert all(readmodels.summary(m) == fresh_views(store, m).summary for m in match_ids)
    assert lanes.request(match_ids[0])  # disarmed: the next request queues a job of its own


def test_a_request_whose_job_cannot_be_queued_leaves_the_lane_disarmed(
    lanes: CatchUpLanes, monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_queue(queue, lane):
        raise ConnectionError("the queue's Redis went away")

    monkeypatch.setattr(lanes_module, "enqueue_drain", no_queue)
    with pytest.raises(ConnectionError):
        lanes.request("m1")
    monkeypatch.undo()
    assert lanes.request("m1")  # it arms the lane and queues the job this time


def _drained_while_requests_keep_coming(
    store: RedisEventStore, context: ProjectorContext, lanes: CatchUpLanes, monkeypatch: pytest.MonkeyPatch,
    folded_all_but_the_last: bool,
) -> list[float]:
    """Four matches requested one by one, each while the one before is caught up; the drain's naps."""
    first, *later = store_matches(store, 4)
    if folded_all_but_the_last:  # this worker folded each of them up to its last event but one
        for match_id in (first, *later):
            context.cache.put(fold_up_to(store, match_id, store.version(match_id) - 1))
    context.linger_seconds, context.busy_linger_seconds = 0.001, 0.004
    naps: list[float] = []
    monkeypatch.setattr(drain_module.time, "sleep", naps.append)
    real_catch_up = drain_module.catch_up

    def requests_keep_coming(match_id: str, ctx: ProjectorContext) -> int:
        if later:  # the next request arrives while this match is caught up
            lanes.request(later.pop(0))
        return real_catch_up(match_id, ctx)

    monkeypatch.setattr(drain_module, "catch_up", requests_keep_coming)
    lanes.request(first)
    lanes.queue.empty()  # as a worker does: the drain job left the queue when it started
    assert drain(0, lanes, context, patience_seconds=0) == 4
    assert list(store.unprojected()) == []
    return naps


def test_a_busy_lane_whose_matches_moved_once_each_lingers_only_the_short_linger(
    store: RedisEventStore, context: ProjectorContext, one_lane: CatchUpLanes,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    naps = _drained_while_requests_keep_coming(store, context, one_lane, monkeypatch, folded_all_but_the_last=True)
    # Busy, but each batch moved its match by one event: lingering longer would only add lag.
    assert naps == [0.001, 0.001, 0.001, 0.001]


def test_a_lane_that_stays_busy_is_drained_in_batches_spaced_by_the_busy_linger(
    store: RedisEventStore, context: ProjectorContext, one_lane: CatchUpLanes,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    naps = _drained_while_requests_keep_coming(store, context, one_lane, monkeypatch, folded_all_but_the_last=False)
    # The start's short linger; the second batch was found at once, and from then on the
    # lane counts as busy: the drain waits the busy linger before each further batch.
    assert naps == [0.001, 0.004, 0.004, 0.004]
