"""Many spectators of live match streams, as raw non-blocking sockets in one process.

A viewer is one ``GET /matches/{id}/stream`` connection (no token: the spectator's view).
The benchmark reads every socket with one selector: the views' ``id:`` lines say which
version of its match a viewer has seen, and :class:`Idle` keeps reading (and dropping)
what idle streams send, their keep-alive comments, from a thread while a window runs.
"""
from __future__ import annotations

import re
import resource
import selectors
import socket
import struct
import sys
import threading
import time
from pathlib import Path

from . import cpu
from .wire import Http

_ID = re.compile(rb"\nid: (\d+)\n")
SPARE_FILES = 500  # open files the benchmark process needs besides its viewers


def allowed_viewers(wanted: int) -> int:
    """Raise the open-files limit to its hard limit; how many viewers it allows (at most ``wanted``).

    The stack's processes are started after this and inherit the raised limit.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        soft = hard
    if soft == resource.RLIM_INFINITY or soft >= wanted + SPARE_FILES:
        return wanted
    allowed = max(10, soft - SPARE_FILES)
    print(f"streams: the open-files hard limit is {hard}: measuring {allowed:,} streams, not {wanted:,}",
          file=sys.stderr, flush=True)
    return allowed


def open_viewers(port: int, match_id: str, count: int) -> list[socket.socket]:
    """``count`` spectator streams of ``match_id``, requested (not yet read)."""
    sockets = []
    request = f"GET /matches/{match_id}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    for _ in range(count):
        viewer = socket.create_connection(("127.0.0.1", port), timeout=30)
        viewer.sendall(request)
        viewer.setblocking(False)
        sockets.append(viewer)
    return sockets


def read_views(sockets: list[socket.socket], after: int, seconds: float) -> dict[socket.socket, float]:
    """When (``time.monotonic()``) each socket received a view newer than version ``after``.

    Sockets missing from the answer received none within ``seconds``.
    """
    selector, received, seen = selectors.DefaultSelector(), {s: b"" for s in sockets}, {}
    for viewer in sockets:
        selector.register(viewer, selectors.EVENT_READ)
    deadline = time.monotonic() + seconds
    while len(seen) < len(sockets) and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=0.5):
            chunk = _recv(key.fileobj)
            if chunk is None:
                continue
            received[key.fileobj] += chunk
            if not chunk or any(int(v) > after for v in _ID.findall(received[key.fileobj])):
                if chunk:
                    seen[key.fileobj] = time.monotonic()
                selector.unregister(key.fileobj)
    selector.close()
    return seen


def _recv(viewer: socket.socket) -> bytes | None:
    """What the socket has (b"": it was closed or reset); None when nothing after all."""
    try:
        return viewer.recv(65536)
    except BlockingIOError:
        return None
    except OSError:
        return b""


def close_viewers(sockets: list[socket.socket]) -> None:
    """Close with a reset: the server's next write to each (its keep-alive at the latest) fails."""
    linger = struct.pack("ii", 1, 0)
    for viewer in sockets:
        try:
            viewer.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
        except OSError:
            pass
        viewer.close()
    sockets.clear()


def streams_open(port: int, asks: int = 8) -> int:
    """The most streams any API process said it holds, over ``asks`` fresh connections."""
    most = 0
    for _ in range(asks):
        http = Http(port)
        most = max(most, http.expect(200, "GET", "/health")[0]["streams"]["open"])
        http.close()
    return most


def wait_streams_closed(port: int, timeout: float = 60.0) -> float:
    """Seconds until every API process holds no stream (a reset stream goes at its next keep-alive)."""
    started = time.monotonic()
    while streams_open(port):
        if time.monotonic() - started > timeout:
            raise RuntimeError(f"the API still held streams {timeout:.0f} s after they were closed")
        time.sleep(0.5)
    return time.monotonic() - started


def rss_kb(master: int) -> int:
    """Resident memory of the API's worker processes (the gunicorn master's children), KB."""
    total = 0
    for pid in cpu.children(master):
        status = Path(f"/proc/{pid}/status").read_text()
        total += int(re.search(r"VmRSS:\s+(\d+)", status).group(1))
    return total


class Idle:
    """Reads every socket in a thread, dropping what arrives, until the ``with`` block ends."""

    def __init__(self, sockets: list[socket.socket]) -> None:
        self._sockets, self._stop = sockets, threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)

    def __enter__(self) -> Idle:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _read(self) -> None:
        selector = selectors.DefaultSelector()
        for viewer in self._sockets:
            selector.register(viewer, selectors.EVENT_READ)
        while not self._stop.is_set():
            for key, _ in selector.select(timeout=0.2):
                chunk = _recv(key.fileobj)
                if chunk == b"":  # closed by the server (None: nothing to read yet)
                    selector.unregister(key.fileobj)
        selector.close()
