"""A whole running system the reliability tests may break: redis-server, gunicorn, workers, bot.

Unlike the end-to-end stack, every part can be killed and started again: Redis on the same
port and data directory (so its AOF is what survives), workers one by one.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

import redis

from services.embedded_redis import EmbeddedRedis, free_port
from tests.e2e.http import Http

ROOT = Path(__file__).resolve().parents[2]
BOT_TOKEN = "reliability-bot-secret-of-at-least-32-characters"
CLIENT_TIMEOUT = 10.0  # seconds: a request not answered by then counts as a hang
SWEEP_SECONDS = 2  # workers look for unprojected matches this often


class TimedHttp(Http):
    """The end-to-end HTTP client with a short socket timeout, so a hang fails fast."""

    def __init__(self, base_url: str, timeout: float = CLIENT_TIMEOUT) -> None:
        super().__init__(base_url, timeout)


class Stack:
    """Redis, the API under gunicorn, projector workers and (optionally) the bot, as processes."""

    def __init__(
        self, root: Path, *, appendfsync: str = "always", api_workers: int = 2, api_threads: int = 8,
        env: dict[str, str] | None = None,
    ) -> None:
        self.root = root
        self.server = EmbeddedRedis(root / "redis", port=free_port(), appendfsync=appendfsync)
        self.port = free_port()
        self.env = {
            **os.environ, "REDIS_URL": f"redis://127.0.0.1:{self.server.port}/0", "HOST": "127.0.0.1",
            "PORT": str(self.port), "DATA_DIR": str(root), "SWEEP_SECONDS": str(SWEEP_SECONDS),
            "API_WORKERS": str(api_workers), "API_THREADS": str(api_threads), "BOT_TOKEN": BOT_TOKEN,
            "RATE_LIMITS": "off",  # many players and matches from 127.0.0.1, far past a public server's limits
            **(env or {}),  # a test's own settings (limits on, shorter bounds, ...)
        }
        self.url = f"http://127.0.0.1:{self.port}"
        self.http = TimedHttp(self.url)
        self.api: subprocess.Popen | None = None
        self.bot: subprocess.Popen | None = None
        self.workers: list[subprocess.Popen] = []
        self._logs: list[IO[bytes]] = []

    # --- starting -----------------------------------------------------------------

    def start(self, workers: int = 2, bot: bool = False) -> Stack:
        """Start everything and wait until the API answers /health with 200."""
        self.server.start()
        self.api = self._spawn("api", "services.api")
        self.wait_healthy()
        for _ in range(workers):
            self.start_worker()
        if bot:
            self.bot = self._spawn("bot", "services.bots")
        return self

    def start_worker(self) -> subprocess.Popen:
        """One more projector worker process."""
        worker = self._spawn(f"worker-{len(self.workers)}", "services.projector")
        self.workers.append(worker)
        return worker

    def _spawn(self, name: str, module: str) -> subprocess.Popen:
        log = open(self.root / f"{name}.log", "ab")
        self._logs.append(log)
        return subprocess.Popen([sys.executable, "-m", module], env=self.env, cwd=ROOT, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)

    def wait_healthy(self, timeout: float = 30.0) -> None:
        """Block until GET /health answers 200."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.api is not None and self.api.poll() is not None:
                raise RuntimeError(f"the API exited: {self.log('api')[-2000:]}")
            try:
                if self.http.get("/health").status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError("the API did not become healthy")

    def log(self, name: str) -> str:
        """The log a process wrote so far (api, bot, worker-N, redis/redis)."""
        path = self.root / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def client(self) -> redis.Redis:
        """A fresh Redis client of the stack's server, with bounded timeouts."""
        return redis.Redis.from_url(self.env["REDIS_URL"], socket_timeout=5, socket_connect_timeout=2)

    # --- breaking -----------------------------------------------------------------

    def kill_redis(self) -> None:
        """SIGKILL redis-server, as a crash would: nothing is flushed."""
        self.server.kill()

    def restart_redis(self) -> None:
        """Start redis-server again on the same port and data directory (it replays its AOF)."""
        self.server.start()

    def redis_pid(self) -> int:
        """The running redis-server's process id."""
        with self.client() as client:
            return int(client.info("server")["process_id"])

    def live_workers(self) -> list[subprocess.Popen]:
        """The projector workers still running."""
        return [worker for worker in self.workers if worker.poll() is None]

    def kill_worker(self, worker: subprocess.Popen) -> None:
        """SIGKILL one projector worker: whatever job it was running dies with it."""
        worker.send_signal(signal.SIGKILL)
        worker.wait()

    # --- stopping -----------------------------------------------------------------

    def close(self) -> None:
        """Kill every process group at once (the test is over: nothing needs a clean stop), then Redis."""
        processes = [p for p in (self.api, self.bot, *self.workers) if p is not None]
        for process in processes:
            if process.poll() is None:
                # The whole group: gunicorn's own workers too (a thread blocked on a live
                # stream would hold a graceful or quick shutdown for seconds).
                os.killpg(process.pid, signal.SIGKILL)
        for process in processes:
            process.wait()
        self.server.stop()
        for log in self._logs:
            log.close()
