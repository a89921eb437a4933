"""The archiver stopped at each step, and a real archiver killed (-9): every match whole somewhere, a rerun finishes.

Real redis-server; the directory archive (on disk, shared with the worker process).
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from services.embedded_redis import EmbeddedRedis
from shared import keys
from shared.archive.archiving import STEPS, Archiver
from shared.archive.files import FileArchive
from shared.archive.index import ArchiveIndex
from shared.eventstore import RedisEventStore
from shared.readmodels.scoreboard import Scoreboard
from tests.archiver_support import ENDED_AT, HOUR_MS, finished_match, match_keys
from tests.waiting import wait_until

REPO = Path(__file__).resolve().parents[3]


class Stopped(Exception):
    """The run died here."""


def whole_somewhere(client: redis.Redis, archive: FileArchive, match_id: str, events: list) -> str:
    """``redis`` or ``archive``, where the match is whole; AssertionError if it is whole nowhere."""
    entry = ArchiveIndex(client).get(match_id)
    if entry is None:
        assert RedisEventStore(client).read(match_id) == events
        assert client.hget(keys.match_views(match_id), "version") == str(len(events)).encode()
        return "redis"
    kept = archive.get(match_id)
    assert kept is not None and list(kept.events) == events
    assert (entry.count, entry.head) == (kept.count, kept.head)
    assert match_keys(client, match_id) == {keys.match_archived(match_id)}
    return "archive"


@pytest.mark.parametrize("step", STEPS)
def test_a_run_stopped_at_each_step_leaves_the_match_whole_and_a_rerun_finishes(
        redis_client: redis.Redis, tmp_path: Path, step: str) -> None:
    finished_match(redis_client, "m1")
    events = RedisEventStore(redis_client).read("m1")
    archive = FileArchive(tmp_path / "archive")

    def stop(reached: str) -> None:
        if reached == step:
            raise Stopped(step)

    board = Scoreboard(redis_client).scoreboard()
    with pytest.raises(Stopped):
        Archiver(redis_client, archive, HOUR_MS, clock=lambda: ENDED_AT + 2 * HOUR_MS, stop=stop).archive_one("m1")
    left = step in ("left", "chilled")
    assert whole_somewhere(redis_client, archive, "m1", events) == ("archive" if left else "redis")
    assert count_again(redis_client, "m1", events) == [False, False]
    assert Scoreboard(redis_client).scoreboard() == board
    rerun = Archiver(redis_client, archive, HOUR_MS, clock=lambda: ENDED_AT + 2 * HOUR_MS)
    assert rerun.archive_one("m1").result == ("already" if left else "archived")
    assert whole_somewhere(redis_client, archive, "m1", events) == "archive"
    assert rerun.due() == []
    assert count_again(redis_client, "m1", events) == [False, False]
    assert Scoreboard(redis_client).scoreboard() == board
    assert not redis_client.exists(keys.scoreboard_matches(), *(keys.player_results(p) for p in ("m1a", "m1b")))


def count_again(client: redis.Redis, match_id: str, events: list) -> list[bool]:
    """A late duplicate of the match's projection counts each player's result again: newly counted?"""
    board = Scoreboard(client)
    return [board.record_result(match_id, player_id, player_id, True, 1, 12, 0, events[0].at)
            for player_id in (f"{match_id}a", f"{match_id}b")]


def _start(redis_server: EmbeddedRedis, data_dir: Path, log_name: str) -> subprocess.Popen:
    env = {**os.environ, "REDIS_URL": redis_server.url, "QUEUE_URL": redis_server.url, "DATA_DIR": str(data_dir),
           "ARCHIVE_AFTER": "1", "SWEEP_SECONDS": "1"}
    with open(data_dir / log_name, "wb") as log:
        return subprocess.Popen([sys.executable, "-m", "services.archiver"], cwd=REPO, env=env,
                                stdout=log, stderr=subprocess.STDOUT)


def test_a_real_archiver_killed_mid_run_leaves_every_match_whole_and_the_next_one_finishes(
        redis_server: EmbeddedRedis, redis_client: redis.Redis, tmp_path: Path) -> None:
    match_ids = [f"k{n}" for n in range(40)]
    for n, match_id in enumerate(match_ids):
        finished_match(redis_client, match_id, seed=n)
    originals = {match_id: RedisEventStore(redis_client).read(match_id) for match_id in match_ids}
    archive = FileArchive(tmp_path / "archive")
    index = ArchiveIndex(redis_client)
    worker = _start(redis_server, tmp_path, "archiver-1.log")
    try:
        wait_until(lambda: any(index.get(m) for m in match_ids), what="a first match archived")
        worker.send_signal(signal.SIGKILL)
        worker.wait(10)
        where = {m: whole_somewhere(redis_client, archive, m, originals[m]) for m in match_ids}
        assert "archive" in where.values()
        worker = _start(redis_server, tmp_path, "archiver-2.log")
        wait_until(lambda: all(index.get(m) for m in match_ids), what="every match archived", timeout=60)
        assert {whole_somewhere(redis_client, archive, m, originals[m]) for m in match_ids} == {"archive"}
    finally:
        _stop(worker)


def _stop(worker: subprocess.Popen) -> None:
    """SIGTERM, and SIGKILL if it is not gone in 10 s (RQ's teardown may wait on its pub/sub thread)."""
    worker.send_signal(signal.SIGTERM)
    try:
        worker.wait(timeout=10)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait()
