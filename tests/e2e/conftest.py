"""The running services: a real redis-server, gunicorn and two projector worker processes (archivers on demand)."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import redis

from services.embedded_redis import EmbeddedRedis, free_port

from .http import Http

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Stack:
    http: Http
    redis: redis.Redis
    env: dict[str, str]
    logs: Path
    workers: list[subprocess.Popen] = field(default_factory=list)
    timers: list[subprocess.Popen] = field(default_factory=list)
    archivers: list[subprocess.Popen] = field(default_factory=list)

    def start_timer(self) -> subprocess.Popen:
        log = open(self.logs / f"timer-{len(self.timers)}.log", "ab")
        timer = subprocess.Popen([sys.executable, "-m", "services.api", "timer"], env=self.env, cwd=ROOT,
                                 stdout=log, stderr=subprocess.STDOUT)
        self.timers.append(timer)
        return timer

    def start_pairer(self) -> subprocess.Popen:
        """A pairer (``python -m services.api pairer``), stopped with the timers."""
        log = open(self.logs / f"pairer-{len(self.timers)}.log", "ab")
        pairer = subprocess.Popen([sys.executable, "-m", "services.api", "pairer"], env=self.env, cwd=ROOT,
                                  stdout=log, stderr=subprocess.STDOUT)
        self.timers.append(pairer)
        return pairer

    @contextmanager
    def another_api(self, name: str, **settings: str) -> Iterator[str]:
        """The base URL of an API process beside the stack's, on the same Redis with ``settings``
        on top of the stack's (e.g. the limits on, which the stack runs without), until the block ends."""
        port = free_port()
        env = {**self.env, "PORT": str(port), **settings}
        with open(self.logs / f"{name}.log", "ab") as log:
            api = subprocess.Popen([sys.executable, "-m", "services.api"], env=env, cwd=ROOT, stdout=log,
                                   stderr=subprocess.STDOUT)
        base = f"http://127.0.0.1:{port}"
        try:
            _wait_healthy(Http(base, timeout=2), api, self.logs / f"{name}.log")
            yield base
        finally:
            api.terminate()
            api.wait(10)

    def start_worker(self) -> subprocess.Popen:
        log = open(self.logs / f"worker-{len(self.workers)}.log", "ab")
        worker = subprocess.Popen(
            [sys.executable, "-m", "services.projector"], env=self.env, cwd=ROOT,
            stdout=log, stderr=subprocess.STDOUT,
        )
        self.workers.append(worker)
        return worker

    @contextmanager
    def archiver(self, **settings: str) -> Iterator[subprocess.Popen]:
        """An archiver worker (``python -m services.archiver``, as ``make run`` starts them) with ``settings``
        on top of the stack's (e.g. ``ARCHIVE_AFTER``), until the block ends: the stack runs none otherwise,
        so the other tests' matches stay in Redis."""
        with open(self.logs / f"archiver-{len(self.archivers)}.log", "ab") as log:
            archiver = subprocess.Popen([sys.executable, "-m", "services.archiver"], env={**self.env, **settings},
                                        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        self.archivers.append(archiver)
        try:
            yield archiver
        finally:
            archiver.terminate()
            try:
                archiver.wait(10)
            except subprocess.TimeoutExpired:  # RQ's teardown may wait on its pub/sub thread
                archiver.kill()
                archiver.wait()


def _wait_healthy(http: Http, api: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if api.poll() is not None:
            raise RuntimeError(f"the API exited: {log.read_text()[-2000:]}")
        try:
            if http.get("/health").status == 200:
                return
        except OSError:
            pass
        time.sleep(0.05)
    raise RuntimeError("the API did not become healthy in 30 s")


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    data = tmp_path_factory.mktemp("e2e")
    server = EmbeddedRedis(data / "redis").start()
    port = free_port()
    env = {
        **os.environ, "REDIS_URL": server.url, "HOST": "127.0.0.1", "PORT": str(port),
        "DATA_DIR": str(data), "SWEEP_SECONDS": "2", "API_WORKERS": "2",
        "BOT_TOKEN": "e2e-bot-secret-of-at-least-32-characters",
        # Sizes the waiting reads' cap (MAX_WAITS); streams hold no thread under the gevent worker.
        "API_THREADS": "32",
        # The tests register and play far more from 127.0.0.1 than a public server lets one client;
        # test_limits_over_http.py runs an API of its own with the limits on.
        "RATE_LIMITS": "off",
        # The workers' and the timer's metrics ports start here (each takes the next free one);
        # JSON log lines, as in production.
        "METRICS_PORT": str(free_port()), "LOG_FORMAT": "json",
        # The files archive every process reads (and an archiver started by a test writes), in DATA_DIR.
        "ARCHIVE_URL": f"file:{data / 'archive'}",
    }
    api = subprocess.Popen(
        [sys.executable, "-m", "services.api"], env=env, cwd=ROOT,
        stdout=open(data / "api.log", "ab"), stderr=subprocess.STDOUT,
    )
    http = Http(f"http://127.0.0.1:{port}")
    stack = Stack(http, redis.Redis.from_url(server.url), env, data)
    bot: subprocess.Popen | None = None
    try:
        _wait_healthy(http, api, data / "api.log")
        for _ in range(2):
            stack.start_worker()
        stack.start_timer()
        bot = subprocess.Popen(
            [sys.executable, "-m", "services.bots"], env=env, cwd=ROOT,
            stdout=open(data / "bot.log", "ab"), stderr=subprocess.STDOUT,
        )
        yield stack
    finally:
        processes = [process for process in (api, *stack.workers, *stack.timers, *stack.archivers, bot)
                     if process is not None]
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
        server.stop()
