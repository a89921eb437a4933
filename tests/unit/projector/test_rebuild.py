"""Rebuilding into a new generation: live catch-ups feed it, reads switch at once, failures change nothing."""

from __future__ import annotations

import random
import threading
from collections import Counter
from dataclasses import replace

import fakeredis
import pytest
from click.testing import CliRunner
from rq import Queue, SimpleWorker, Worker

from services.cli import rebuild_command as rebuild_command
from services.cli.backends import Backends
from services.projector.catchup.catching_up import fresh_views
from services.projector.catchup.projector_context import ProjectorContext
from services.projector.job_table import ProjectorJob
from services.projector.jobs import catch_up, rebuild_batch
from services.projector.queues import catch_up_queue, enqueue_rebuild, rebuild_queue
from services.projector.rebuild import full_rebuild as rebuild_module
from services.projector.rebuild.full_rebuild import Rebuild, RebuildError, RebuildOptions, RebuildReport, batches
from services.projector.rebuild.lock_and_switch import RebuildLockError, lock_rebuild, start_building
from shared import keys
from shared.codec import encode
from shared.config import Config
from shared.eventstore import RedisEventStore
from shared.job_names import REBUILD_BATCH as REBUILD_JOB
from shared.readmodels import ReadModels
from shared.readmodels.generations import Pointer, read_pointer
from tests.projector_support import append_in_batches, random_match, recount

PLAYERS = [("p1", "alice"), ("p2", "bob"), ("p3", "carol")]
QUICK = RebuildOptions(batch_size=2, grace_seconds=0, poll_seconds=0.01)


def store_varied_matches(store: RedisEventStore, count: int, first: int = 0) -> list[str]:
    """Store ``count`` random matches m<first>, ... between players drawn from PLAYERS; their ids."""
    match_ids = []
    for n in range(first, first + count):
        match_id, rng = f"m{n}", random.Random(n)
        append_in_batches(store, match_id, random_match(n, match_id, tuple(rng.sample(PLAYERS, 2))), rng)
        match_ids.append(match_id)
    return match_ids


def assert_generation_is_a_fresh_fold(store: RedisEventStore, readmodels: ReadModels, generation: int) -> None:
    models, match_ids = readmodels.at(generation), list(store.match_ids())
    for match_id in match_ids:
        expected = fresh_views(store, match_id)
        assert [models.view(match_id, a) for a in ("A", "B", "spectator")] == [
            expected.views["A"], expected.views["B"], expected.views["spectator"]]
        assert models.summary(match_id) == expected.summary
        assert match_id in [s["id"] for s in models.lobby(expected.summary["status"], limit=1000)]
    board = models.scoreboard(limit=100)
    finished = [m for m in match_ids if fresh_views(store, m).results]
    assert board["version"] == len(finished)
    assert {row["id"]: Counter({k: v for k, v in row.items() if k not in ("id", "name")})
            for row in board["players"]} == recount(store, finished)


def test_while_building_a_catch_up_writes_both_generations_and_only_the_served_one_clears_the_mark(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, readmodels: ReadModels, context: ProjectorContext,
) -> None:
    events = random_match(1, "m1")
    store.append("m1", [encode(e) for e in events[:3]], 0)
    catch_up("m1", context)
    lock_rebuild(fake_redis, "me")
    start_building(fake_redis, 1, "me")
    store.append("m1", [encode(e) for e in events[3:]], 3)
    assert catch_up("m1", context) == len(events)
    assert readmodels.at(0).projected_version("m1") == readmodels.at(1).projected_version("m1") == len(events)
    assert readmodels.at(1).lobby("finished") == readmodels.at(0).lobby("finished") != []
    assert readmodels.at(1).scoreboard() == readmodels.at(0).scoreboard()
    assert list(store.unprojected()) == []


class FailingGeneration(ReadModels):
    """Read models whose views' writes to one generation fail (the worker dies there)."""

    def __init__(self, client: fakeredis.FakeRedis, failing: int) -> None:
        super().__init__(client)
        self.failing = failing

    def write_match(self, *args, generation=None, **kwargs) -> bool:
        if generation == self.failing:
            raise ConnectionError("the worker died here")
        return super().write_match(*args, generation=generation, **kwargs)


@pytest.mark.parametrize("failing", [0, 1], ids=["served", "being-built"])
def test_a_catch_up_that_dies_writing_either_generation_leaves_the_mark_for_the_sweep(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, failing: int,
) -> None:
    store_varied_matches(store, 1)
    lock_rebuild(fake_redis, "me")
    start_building(fake_redis, 1, "me")
    with pytest.raises(ConnectionError):
        catch_up("m0", ProjectorContext(store, FailingGeneration(fake_redis, failing)))
    assert list(store.unprojected()) == ["m0"]


def test_a_catch_up_writes_only_the_served_generation_when_no_rebuild_runs(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, readmodels: ReadModels, context: ProjectorContext,
) -> None:
    store_varied_matches(store, 1)
    fake_redis.hset(keys.READ_MODELS, "generation", 4)
    catch_up("m0", context)
    assert readmodels.at(4).projected_version("m0") and not readmodels.at(0).projected_version("m0")
    assert readmodels.at(5).projected_version("m0") == 0


def test_a_rebuild_job_does_nothing_for_a_generation_no_longer_being_built(
    store: RedisEventStore, readmodels: ReadModels, context: ProjectorContext,
) -> None:
    store_varied_matches(store, 1)
    assert rebuild_batch(["m0"], 1, context) == 0
    assert readmodels.at(1).projected_version("m0") == 0


def test_a_rebuild_job_stops_within_a_few_matches_of_its_rebuild_being_abandoned(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, readmodels: ReadModels, context: ProjectorContext,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from services.projector.rebuild import match_rebuilds as catching_up

    match_ids = store_varied_matches(store, 3 * catching_up.POINTER_EVERY)
    lock_rebuild(fake_redis, "me")
    start_building(fake_redis, 1, "me")
    real, folded = catching_up.rebuild_match, []

    def abandoned_after_the_first(match_id: str, ctx: ProjectorContext, *, generation: int) -> int:
        folded.append(match_id)
        fake_redis.hdel(keys.READ_MODELS, "building")  # the rebuild is abandoned while this job runs
        return real(match_id, ctx, generation=generation)

    monkeypatch.setattr(catching_up, "rebuild_match", abandoned_after_the_first)
    rebuild_batch(match_ids, 1, context)
    assert folded == match_ids[:catching_up.POINTER_EVERY]


def test_an_inline_rebuild_switches_reads_to_a_fresh_fold_and_drops_the_old_generation(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, readmodels: ReadModels, context: ProjectorContext,
) -> None:
    match_ids = store_varied_matches(store, 5)
    for match_id in match_ids:
        catch_up(match_id, context)
    fake_redis.hset(keys.match_views("m0"), "A", b'{"corrupt": true}')
    report = Rebuild(store, readmodels, None, QUICK).run()
    assert (report.previous, report.generation, report.matches, report.workers) == (0, 1, 5, 0)
    assert report.events == sum(store.version(m) for m in match_ids)
    assert read_pointer(fake_redis) == Pointer(1, None, None)
    assert_generation_is_a_fresh_fold(store, readmodels, 1)
    assert readmodels.view("m0", "A") == fresh_views(store, "m0").views["A"]
    assert not [key for key in fake_redis.keys() if b"views" in key and not key.endswith(b":g1")]
    assert Rebuild(store, readmodels, None, QUICK).run().generation == 2  # and again


def test_the_final_pass_catches_up_appends_and_new_matches_the_jobs_missed(
    store: RedisEventStore, readmodels: ReadModels,
) -> None:
    events = random_match(3, "m0")
    store.append("m0", [encode(e) for e in events[:3]], 0)
    store_varied_matches(store, 3, first=1)

    def live_play(done: int, total: int) -> None:
        if done == total:  # every job ran: these appends' catch-up jobs are lost
            store.append("m0", [encode(e) for e in events[3:]], 3)
            store_varied_matches(store, 1, first=9)

    report = Rebuild(store, readmodels, None, QUICK, progress=live_play).run()
    assert report.final_pass == 2
    assert readmodels.projected_version("m0") == len(events)
    assert_generation_is_a_fresh_fold(store, readmodels, 1)


class UnwritableGeneration(ReadModels):
    """Read models that fail to write generation 1 (a bug in the projector, not in the events)."""

    def write_match(self, *args, generation: int | None = None, **kwargs) -> bool:
        if generation == 1:
            raise ValueError("generation 1 cannot be written")
        return super().write_match(*args, generation=generation, **kwargs)


def test_a_failed_rebuild_leaves_the_old_generation_serving(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, readmodels: ReadModels, context: ProjectorContext,
) -> None:
    store_varied_matches(store, 3)
    for match_id in ("m0", "m1", "m2"):
        catch_up(match_id, context)
    served = readmodels.view("m1", "spectator")
    with pytest.raises(RebuildError):
        Rebuild(store, UnwritableGeneration(fake_redis), None, QUICK).run()
    assert read_pointer(fake_redis) == Pointer(0, None, None)
    assert readmodels.view("m1", "spectator") == served
    assert not [key for key in fake_redis.keys() if key.endswith(b":g1")]


def test_a_rebuild_refuses_to_start_beside_another_one(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, readmodels: ReadModels,
) -> None:
    lock_rebuild(fake_redis, "someone else")
    with pytest.raises(RebuildLockError):
        Rebuild(store, readmodels, None, QUICK).run()
    assert Rebuild(store, readmodels, None, RebuildOptions(grace_seconds=0, force=True)).run().generation == 1


class Rebuilding(threading.Thread):
    """A rebuild run in a thread, its jobs run here: RQ's worker wants the main thread (signals)."""

    def __init__(self, rebuild: Rebuild) -> None:
        super().__init__(daemon=True)
        self.rebuild, self.queue, self.report = rebuild, rebuild.queue, None

    def run(self) -> None:
        self.report = self.rebuild.run()

    def work_until_done(self) -> RebuildReport:
        """Burst-work the rebuild's queue until the rebuild ends; its report."""
        while self.is_alive():
            SimpleWorker([self.queue], connection=self.queue.connection, job_class=ProjectorJob).work(burst=True)
            self.join(0.01)
        assert self.report is not None, "the rebuild failed"
        return self.report


@pytest.fixture
def one_worker_queue(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, process_context: ProjectorContext,
    monkeypatch: pytest.MonkeyPatch,
) -> Queue:
    """Five stored matches, and the rebuild queue with one worker registered on it."""
    store_varied_matches(store, 5)
    monkeypatch.setattr(rebuild_module, "registered_workers", lambda queue: 1)
    return rebuild_queue(fake_redis, "projector")


def test_jobs_through_the_rebuild_queue_build_the_new_generation(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, readmodels: ReadModels, one_worker_queue: Queue,
) -> None:
    rebuilding = Rebuilding(Rebuild(store, readmodels, one_worker_queue, QUICK))
    rebuilding.start()
    report = rebuilding.work_until_done()
    assert (report.jobs, report.workers) == (3, 1)
    assert_generation_is_a_fresh_fold(store, readmodels, 1)
    assert read_pointer(fake_redis).generation == 1


def test_a_job_taken_by_a_worker_that_died_before_starting_it_is_queued_again(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, readmodels: ReadModels, one_worker_queue: Queue,
) -> None:
    queue = one_worker_queue
    said: list[str] = []
    options = replace(QUICK, lost_check_seconds=0.05)
    rebuilding = Rebuilding(Rebuild(store, readmodels, queue, options, say=said.append))
    rebuilding.start()
    while not queue.count:
        rebuilding.join(0.001)
    taken = fake_redis.lpop(queue.key).decode()  # the worker's dequeue, then its death
    assert rebuilding.work_until_done().jobs == 3
    assert queue.fetch_job(taken).get_status() == "finished"
    assert "Queued again 1 job(s) a worker took and died before starting." in said
    assert_generation_is_a_fresh_fold(store, readmodels, 1)


def test_a_rebuild_refuses_to_start_while_a_worker_predates_generations(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, readmodels: ReadModels,
) -> None:
    Worker([catch_up_queue(fake_redis, "projector")], connection=fake_redis, name="old").register_birth()
    with pytest.raises(RebuildError, match="old"):
        Rebuild(store, readmodels, rebuild_queue(fake_redis, "projector"), QUICK).run()
    assert read_pointer(fake_redis) == Pointer(0, None, None)


def test_rebuild_jobs_carry_their_batch_and_generation(fake_redis: fakeredis.FakeRedis) -> None:
    job = enqueue_rebuild(rebuild_queue(fake_redis, "projector"), ["m1", "m2"], 3)
    assert (job.func_name, job.args, job.origin) == (REBUILD_JOB, (["m1", "m2"], 3), "projector-rebuild")
    assert batches(["a", "b", "c"], 2) == [["a", "b"], ["c"]]


def test_the_command_reports_the_rebuild_and_fails_with_a_non_zero_status(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, readmodels: ReadModels,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store_varied_matches(store, 2)
    config = Config.from_env({"REDIS_URL": "redis://unused:6379/0"})
    monkeypatch.setattr(rebuild_command, "backends", lambda: Backends(config, fake_redis, store, readmodels, None))
    monkeypatch.setattr(rebuild_command, "connect", lambda url: fake_redis)
    result = CliRunner().invoke(rebuild_command.rebuild, ["--inline", "--grace-seconds", "0"])
    assert result.exit_code == 0, result.output
    assert "Rebuilt generation 1: 2 match(es)" in result.output
    lock_rebuild(fake_redis, "someone else")
    result = CliRunner().invoke(rebuild_command.rebuild, ["--inline"])
    assert result.exit_code == 1 and "already running" in result.output
