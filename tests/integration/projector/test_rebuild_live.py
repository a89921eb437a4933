"""`truc rebuild` on a real Redis with real workers, while matches are played and read.

Live play appends, enqueues a catch-up and waits to read its own write (as a client of the
API does); a reader checks that no read ever answers from a half-built generation: a view
once readable stays readable, and never goes back to an older version.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator

import redis
from rq import Queue

from services.api.catch_up_requests import enqueue_catch_up
from services.embedded_redis import EmbeddedRedis
from services.projector.catchup.catching_up import fresh_views
from shared import keys
from shared.codec import encode
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels
from shared.readmodels.generations import Pointer, read_pointer
from tests.integration.projector.support import REPO, StartWorker, players_of
from tests.projector_support import append_in_batches, random_match, recount
from tests.waiting import wait_until

HISTORY = 300  # matches played before the rebuild
LIVE_AT_ONCE = 6  # matches being played during it
WORKERS = 2


def store_history(store: RedisEventStore) -> None:
    for n in range(HISTORY):
        match_id = f"m{n}"
        append_in_batches(store, match_id, random_match(n % 60, match_id, players_of(n)), random.Random(n))


class LivePlay(threading.Thread):
    """Plays matches a few events at a time, each append followed by a catch-up and a read."""

    def __init__(self, store: RedisEventStore, readmodels: ReadModels, queue: Queue) -> None:
        super().__init__(daemon=True)
        self.store, self.readmodels, self.queue = store, readmodels, queue
        self.stop, self.appends, self.stale_reads, self.errors = threading.Event(), 0, [], []
        self.started_matches: list[str] = []

    def run(self) -> None:
        try:
            self._play()
        except Exception as error:  # noqa: BLE001 - reported by the test
            self.errors.append(repr(error))

    def _play(self) -> None:
        rng, playing = random.Random(7), {}
        for _ in range(LIVE_AT_ONCE):
            self._start(playing)
        while not self.stop.is_set():
            match_id = rng.choice(sorted(playing))
            events, position = playing[match_id]
            batch = events[position:position + rng.randint(1, 3)]
            version = self.store.append(match_id, [encode(e) for e in batch], position)
            enqueue_catch_up(self.queue, match_id)
            self.appends += 1
            if self.readmodels.wait_for_version(match_id, version, 10) < version:
                self.stale_reads.append((match_id, version))  # read-your-writes timed out
            if version == len(events):
                del playing[match_id]
                self._start(playing)
            else:
                playing[match_id] = (events, version)

    def _start(self, playing: dict) -> None:
        n = len(self.started_matches)
        match_id = f"live{n}"
        playing[match_id] = (random_match(100 + n % 40, match_id, players_of(1000 + n)), 0)
        self.started_matches.append(match_id)


class Reader(threading.Thread):
    """Reads views through the pointer; records any read that is missing or went backwards."""

    def __init__(self, readmodels: ReadModels, live: LivePlay) -> None:
        super().__init__(daemon=True)
        self.readmodels, self.live = readmodels, live
        self.stop, self.reads, self.violations = threading.Event(), 0, []
        self.generations: set[int] = set()
        self.seen: dict[str, int] = {}
        self.counted = 0

    def run(self) -> None:
        rng = random.Random(11)
        while not self.stop.is_set():
            self.generations.add(self.readmodels.generation())
            for match_id in [f"m{rng.randrange(HISTORY)}", *self.live.started_matches[-LIVE_AT_ONCE:]]:
                self._check(match_id)
            counted = self.readmodels.scoreboard(limit=0)["version"]
            if counted < self.counted:
                self.violations.append(("scoreboard", self.counted, counted))
            self.counted = max(self.counted, counted)

    def _check(self, match_id: str) -> None:
        view = self.readmodels.view(match_id, "spectator")
        self.reads += 1
        before = self.seen.get(match_id)
        if view is None:
            if before is not None:
                self.violations.append((match_id, before, None))
            return
        if view["id"] != match_id or (before is not None and view["version"] < before):
            self.violations.append((match_id, before, view["version"]))
        self.seen[match_id] = max(view["version"], before or 0)


def run_truc_rebuild(redis_server: EmbeddedRedis, tmp_path) -> subprocess.CompletedProcess:
    env = {**os.environ, "REDIS_URL": redis_server.url, "QUEUE_URL": redis_server.url, "DATA_DIR": str(tmp_path)}
    return subprocess.run(
        [sys.executable, "-c", "from services.cli import main; main()", "rebuild",
         "--batch-size", "10", "--grace-seconds", "1"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=60,
    )


def all_caught_up(store: RedisEventStore, readmodels: ReadModels) -> bool:
    match_ids = list(store.match_ids())
    versions = readmodels.at(readmodels.generation()).projected_versions(match_ids)
    return not any(True for _ in store.unprojected()) and versions == [store.version(m) for m in match_ids]


def generation_zero_keys(client: redis.Redis) -> Iterator[bytes]:
    for pattern in (keys.match_views_pattern(0), keys.player_totals_pattern(0), keys.player_results_pattern(0)):
        yield from client.scan_iter(match=pattern)
    yield from (key.encode() for key in keys.generation_global_keys(0) if client.exists(key))


def test_a_rebuild_during_live_play_switches_to_a_complete_generation_without_a_bad_read(
    redis_client: redis.Redis, redis_server: EmbeddedRedis, store: RedisEventStore,
    readmodels: ReadModels, queue: Queue, start_worker: StartWorker, tmp_path,
) -> None:
    store_history(store)
    for _ in range(WORKERS):
        start_worker(sweep_seconds=2, wait_idle=False)
    wait_until(lambda: all_caught_up(store, readmodels), timeout=30, what="the history to be projected")
    live = LivePlay(store, readmodels, queue)
    reader = Reader(readmodels, live)
    live.start()
    reader.start()
    wait_until(lambda: live.appends >= 50, what="live play to start")

    appends_before = live.appends
    rebuilt = run_truc_rebuild(redis_server, tmp_path)
    appends_during = live.appends - appends_before
    live.stop.set()
    live.join()
    reader.stop.set()
    reader.join()

    assert rebuilt.returncode == 0, rebuilt.stdout + rebuilt.stderr
    assert re.search(rf"Rebuilt generation 1: .* on {WORKERS} worker\(s\)\.", rebuilt.stdout), rebuilt.stdout
    print(f"\n{rebuilt.stdout}(live appends during the rebuild: {appends_during}, reads: {reader.reads})")
    assert appends_during > 0 and reader.generations == {0, 1}
    assert (live.errors, live.stale_reads, reader.violations) == ([], [], [])

    wait_until(lambda: all_caught_up(store, readmodels), what="the last live appends to be projected")
    assert read_pointer(redis_client) == Pointer(1, None, None)
    new = readmodels.at(1)
    for match_id in store.match_ids():
        expected = fresh_views(store, match_id)
        assert new.view(match_id, "A") == expected.views["A"]
        assert new.view(match_id, "B") == expected.views["B"]
        assert new.view(match_id, "spectator") == expected.views["spectator"]
        assert new.summary(match_id) == expected.summary
    board = new.scoreboard(limit=100)
    assert {row["id"]: Counter({k: v for k, v in row.items() if k not in ("id", "name")})
            for row in board["players"]} == recount(store, store.match_ids())
    assert list(generation_zero_keys(redis_client)) == []
