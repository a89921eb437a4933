"""Abusive clients on raw sockets: streams never read, requests trickled in or never sent; and a well-behaved viewer."""

from __future__ import annotations

import re
import socket
import statistics
import threading
import time
from collections.abc import Callable

SMALL_BUFFER = 2048  # bytes: a stuck viewer's receive buffer (so the server's writes block after a few views)


def stream_request(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode()


def stuck_viewers(port: int, path: str, count: int) -> list[socket.socket]:
    """``count`` streams of ``path`` opened and never read, each with a small receive buffer."""
    viewers = []
    for _ in range(count):
        viewer = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        viewer.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SMALL_BUFFER)  # before connecting: the window
        viewer.settimeout(10)
        viewer.connect(("127.0.0.1", port))
        viewer.sendall(stream_request(path))
        viewers.append(viewer)
    return viewers


class Viewer:
    """One stream read as it comes, on a thread of its own: the versions it was sent, and when."""

    def __init__(self, port: int, path: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.sock.sendall(stream_request(path))
        self.versions: list[int] = []
        self._seen = threading.Condition()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        buffer = b""
        while chunk := self._recv():
            buffer += chunk
            *messages, buffer = buffer.split(b"\n\n")
            found = [int(m) for message in messages for m in re.findall(rb"^id: (\d+)$", message, re.M)]
            with self._seen:
                self.versions += found
                self._seen.notify_all()

    def _recv(self) -> bytes:
        try:
            return self.sock.recv(65536)
        except OSError:
            return b""

    def wait_for(self, version: int, seconds: float = 5.0) -> bool:
        """True once the viewer was sent ``version`` (or a later one), within ``seconds``."""
        with self._seen:
            return self._seen.wait_for(lambda: bool(self.versions) and self.versions[-1] >= version, seconds)

    def close(self) -> None:
        self.sock.close()


def closed_within(sock: socket.socket, seconds: float) -> float | None:
    """Seconds until the server closed ``sock`` (reading whatever it sends first); None if still open by then."""
    started = time.monotonic()
    sock.settimeout(seconds)
    try:
        while sock.recv(65536):
            pass
    except TimeoutError:
        return None
    except OSError:
        pass  # reset: closed too
    return time.monotonic() - started


def trickle(port: int, request: bytes, pause: float, stop: threading.Event) -> Callable[[], float | None]:
    """Send ``request`` a byte every ``pause`` seconds, on a thread; the answer says when the server closed it."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    started, closed_at = time.monotonic(), []

    def run() -> None:
        try:
            for byte in request:
                sock.sendall(bytes([byte]))
                if stop.wait(pause):
                    return
            sock.recv(1)
        except OSError:
            pass
        closed_at.append(time.monotonic() - started)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()

    def closed_after() -> float | None:
        thread.join(0)
        return closed_at[0] if closed_at else None

    return closed_after


def timed(call: Callable[[], object]) -> tuple[object, float]:
    started = time.monotonic()
    return call(), time.monotonic() - started


def summary(seconds: list[float]) -> str:
    """p50/max in milliseconds, for the figures."""
    if not seconds:
        return "none"
    return f"p50={statistics.median(seconds) * 1000:.0f}ms max={max(seconds) * 1000:.0f}ms n={len(seconds)}"
