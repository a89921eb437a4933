"""Hundreds of live streams on one match, served by one API process on a handful of Redis connections."""
from __future__ import annotations

import os
import re
import selectors
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson
import pytest
import redis

from services.embedded_redis import EmbeddedRedis, free_port
from tests.waiting import wait_for

from .http import Http
from .table import new_match

ROOT = Path(__file__).resolve().parents[2]
VIEWERS = 300
REDIS_CONNECTIONS = 8  # the API process's pool bound


@dataclass
class OneProcess:
    """Redis and the API as one gunicorn process, so /health counts every stream."""

    http: Http
    redis: redis.Redis
    port: int


@pytest.fixture(scope="module")
def one_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OneProcess]:
    data = tmp_path_factory.mktemp("many-streams")
    server = EmbeddedRedis(data / "redis").start()
    port = free_port()
    env = {**os.environ, "REDIS_URL": server.url, "HOST": "127.0.0.1", "PORT": str(port), "DATA_DIR": str(data),
           "API_WORKERS": "1", "KEEP_ALIVE_SECONDS": "1", "REDIS_CONNECTIONS": str(REDIS_CONNECTIONS),
           "BOT_TOKEN": "many-streams-bot-secret-of-32-characters-or-more",
           "RATE_LIMITS": "off"}  # hundreds of viewers from one address: the limits are tested apart
    api = subprocess.Popen([sys.executable, "-m", "services.api"], env=env, cwd=ROOT,
                           stdout=open(data / "api.log", "ab"), stderr=subprocess.STDOUT)
    http = Http(f"http://127.0.0.1:{port}")
    try:
        deadline = time.monotonic() + 30
        while not _healthy(http):
            assert api.poll() is None and time.monotonic() < deadline, (data / "api.log").read_text()[-2000:]
            time.sleep(0.05)
        yield OneProcess(http, redis.Redis.from_url(server.url), port)
    finally:
        api.terminate()
        api.wait(10)
        server.stop()


def _healthy(http: Http) -> bool:
    try:
        return http.get("/health").status == 200
    except OSError:
        return False


class Viewers:
    """Raw sockets each holding one open stream, read together (what they received, as bytes)."""

    def __init__(self, port: int, path: str, count: int) -> None:
        self.received: dict[socket.socket, bytes] = {}
        for _ in range(count):
            viewer = socket.create_connection(("127.0.0.1", port), timeout=10)
            viewer.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            viewer.setblocking(False)
            self.received[viewer] = b""

    def until_all_see(self, needle: bytes, seconds: float = 20) -> list[socket.socket]:
        """Read until every socket has received ``needle``; those that have not when time is up."""
        selector = selectors.DefaultSelector()
        waiting = {viewer for viewer, got in self.received.items() if needle not in got}
        for viewer in waiting:
            selector.register(viewer, selectors.EVENT_READ)
        deadline = time.monotonic() + seconds
        while waiting and time.monotonic() < deadline:
            for key, _ in selector.select(timeout=0.5):
                chunk = key.fileobj.recv(65536)
                self.received[key.fileobj] += chunk
                if needle in self.received[key.fileobj] or not chunk:
                    waiting.discard(key.fileobj)
                    selector.unregister(key.fileobj)
        selector.close()
        return [viewer for viewer in self.received if needle not in self.received[viewer]]

    def drop(self, viewers: list[socket.socket]) -> None:
        """Close abruptly: a reset, no goodbye."""
        for viewer in viewers:
            viewer.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            viewer.close()
            del self.received[viewer]


def open_streams(one_process: OneProcess) -> int:
    return one_process.http.get("/health").body["streams"]["open"]


def redis_clients(one_process: OneProcess) -> int:
    return len(one_process.redis.client_list()) - 1  # not this test's own


def test_hundreds_of_viewers_get_each_move_on_a_few_redis_connections_and_leavers_are_freed(one_process):
    match_id, _, b = new_match(one_process, first_dealer="A")  # B leads
    ticket = one_process.http.post("/stream-tickets", token=b.token).body["ticket"]  # a browser's: no token in a URL
    seat = Viewers(one_process.port, f"/matches/{match_id}/stream?ticket={ticket}", 1)
    assert not seat.until_all_see(b"\nid: 3\n")
    hand = orjson.loads(re.search(rb"data: (.*)\n", next(iter(seat.received.values()))).group(1))["round"]["hand"]
    few = Viewers(one_process.port, f"/matches/{match_id}/stream", 10)
    assert not few.until_all_see(b"\nid: 3\n")
    with_few = redis_clients(one_process)

    crowd = Viewers(one_process.port, f"/matches/{match_id}/stream", VIEWERS)
    assert not crowd.until_all_see(b"\nid: 3\n"), "a viewer did not get the first view"
    assert open_streams(one_process) == VIEWERS + 11
    with_crowd = redis_clients(one_process)
    played = one_process.http.post(f"/matches/{match_id}/actions", {"type": "play", "card": hand[0]}, token=b.token)
    assert played.status == 200 and played.body["version"] == 4
    assert not crowd.until_all_see(b"\nid: 4\n"), "a viewer did not get the move"
    assert not few.until_all_see(b"\nid: 4\n") and not seat.until_all_see(b"\nid: 4\n")

    crowd.drop(list(crowd.received)[: VIEWERS // 2])
    left = wait_for(lambda: open_streams(one_process), lambda count: count == VIEWERS - VIEWERS // 2 + 11, 10.0)
    assert left == VIEWERS - VIEWERS // 2 + 11, "the server did not free the streams of the viewers that left"
    print(f"Redis clients of the API: {with_few} with 11 streams, {with_crowd} with {VIEWERS + 11}, "
          f"{redis_clients(one_process)} after {VIEWERS // 2} left")
    assert with_crowd <= with_few + REDIS_CONNECTIONS and with_crowd <= REDIS_CONNECTIONS + 3, \
        "Redis connections grew with the viewers"
    assert redis_clients(one_process) <= REDIS_CONNECTIONS + 3
    for viewers in (crowd, few, seat):
        viewers.drop(list(viewers.received))
    assert wait_for(lambda: open_streams(one_process), lambda count: count == 0, 10.0) == 0
