"""``python -m bench.live_streams [N]``: N live streams on one match against the API as ``make run`` serves it.

Starts redis-server and the API (two gevent processes), opens N spectator streams of one
match from raw sockets in this process, plays one move, and prints how long the streams
took to open, how long the move took to reach them (p50, p99, max), the API processes'
Redis connections and their resident memory. Not part of ``make bench`` (it needs a high
open-files limit: N + a few hundred).
"""
from __future__ import annotations

import os
import re
import selectors
import socket
import subprocess
import sys
import time
from pathlib import Path
from tempfile import TemporaryDirectory

import orjson
import redis

from services.embedded_redis import EmbeddedRedis, free_port

from .player import register
from .wire import Http

ROOT = Path(__file__).resolve().parents[1]


def open_all(port: int, path: str, count: int) -> list[socket.socket]:
    sockets = []
    for _ in range(count):
        viewer = socket.create_connection(("127.0.0.1", port), timeout=30)
        viewer.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        viewer.setblocking(False)
        sockets.append(viewer)
    return sockets


def read_until(sockets: list[socket.socket], needle: bytes, seconds: float) -> dict[socket.socket, float]:
    """When each socket received ``needle`` (time.monotonic()); missing ones did not in ``seconds``."""
    selector, received, seen = selectors.DefaultSelector(), {s: b"" for s in sockets}, {}
    for viewer in sockets:
        selector.register(viewer, selectors.EVENT_READ)
    deadline = time.monotonic() + seconds
    while len(seen) < len(sockets) and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=0.5):
            received[key.fileobj] += key.fileobj.recv(65536)
            if needle in received[key.fileobj]:
                seen[key.fileobj] = time.monotonic()
                selector.unregister(key.fileobj)
    selector.close()
    return seen


def rss_kb(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        status = Path(f"/proc/{pid}/status").read_text()
        total += int(re.search(r"VmRSS:\s+(\d+)", status).group(1))
    return total


def main(count: int) -> None:
    with TemporaryDirectory() as data:
        server = EmbeddedRedis(Path(data) / "redis").start()
        port = free_port()
        env = {**os.environ, "REDIS_URL": server.url, "PORT": str(port), "DATA_DIR": data, "API_WORKERS": "2",
               "BOT_TOKEN": "bench-bot-secret-of-at-least-32-characters",
               "RATE_LIMITS": "off"}  # thousands of streams from this one address
        api = subprocess.Popen([sys.executable, "-m", "services.api"], env=env, cwd=ROOT,
                               stdout=open(Path(data) / "api.log", "ab"), stderr=subprocess.STDOUT)
        try:
            run(Http(port), redis.Redis.from_url(server.url), port, api.pid, count)
        finally:
            api.terminate()
            api.wait(10)
            server.stop()


def run(http: Http, client: redis.Redis, port: int, master: int, count: int) -> None:
    while True:
        try:
            if http.call("GET", "/health")[0] == 200:
                break
        except OSError:
            time.sleep(0.1)
    a, b = register(http, lambda *_: None), register(http, lambda *_: None)
    match_id = http.expect(201, "POST", "/matches", body={"first_dealer": "A"}, token=a)[0]["id"]
    http.expect(200, "POST", f"/matches/{match_id}/join", token=b)
    [seat] = open_all(port, f"/matches/{match_id}/stream?token={b}", 1)
    seat.setblocking(True)
    first = b""
    while not re.search(rb"data: .*\n", first):
        first += seat.recv(65536)
    hand = orjson.loads(re.search(rb"data: (.*)\n", first).group(1))["round"]["hand"]
    workers = [int(pid) for pid in subprocess.run(["pgrep", "-P", str(master)], capture_output=True,
                                                  text=True).stdout.split()]
    before, rss_before = len(client.client_list()), rss_kb(workers)
    started = time.monotonic()
    viewers = open_all(port, f"/matches/{match_id}/stream", count)
    opened = read_until(viewers, b"\nid: 3\n", 120)
    open_seconds = time.monotonic() - started
    clients, rss = len(client.client_list()), rss_kb(workers)
    sent = time.monotonic()
    http.expect(200, "POST", f"/matches/{match_id}/actions", body={"type": "play", "card": hand[0]}, token=b)
    arrived = sorted(at - sent for at in read_until(viewers, b"\nid: 4\n", 60).values())
    print(f"{len(opened)}/{count} streams open in {open_seconds:.1f} s; the move reached {len(arrived)}: "
          f"p50 {arrived[len(arrived) // 2] * 1000:.0f} ms, p99 {arrived[int(len(arrived) * 0.99)] * 1000:.0f} ms, "
          f"max {arrived[-1] * 1000:.0f} ms; Redis clients {before} before, {clients} with the streams "
          f"(this script's one included); API workers' RSS {rss_before // 1024} MB -> {rss // 1024} MB "
          f"({(rss - rss_before) / max(1, len(opened)):.1f} KB per stream)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5000)
