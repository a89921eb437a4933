"""Token rotation on two API processes over one Redis: both remember the old token (their caches
answer without asking Redis), one rotates it, and within moments both refuse it and take the new one.

Each API here is a gunicorn of one worker on a port of its own, so the test knows which process
answers; a Redis of their own, so its command counts are theirs.
"""
from __future__ import annotations

import http.client
import os
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
import redis

from services.embedded_redis import EmbeddedRedis, free_port
from tests.waiting import wait_for, wait_until

from .conftest import ROOT
from .http import Http

WARM_REQUESTS = 5


@pytest.fixture(scope="module")
def two_apis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[list[Http], redis.Redis]]:
    data = tmp_path_factory.mktemp("rotation")
    server = EmbeddedRedis(data / "redis").start()
    processes, apis = [], []
    try:
        for n in range(2):
            port = free_port()
            env = {**os.environ, "REDIS_URL": server.url, "HOST": "127.0.0.1", "PORT": str(port),
                   "DATA_DIR": str(data / f"api-{n}"), "API_WORKERS": "1", "RATE_LIMITS": "off",
                   "LOG_FORMAT": "json", "METRICS_PORT": str(free_port()), "KEEP_ALIVE_SECONDS": "1"}
            with open(data / f"api-{n}.log", "ab") as log:
                processes.append(subprocess.Popen([sys.executable, "-m", "services.api"], env=env, cwd=ROOT,
                                                  stdout=log, stderr=subprocess.STDOUT))
            apis.append(Http(f"http://127.0.0.1:{port}", timeout=10))
        for process, api in zip(processes, apis):
            wait_until(lambda api=api, process=process: process.poll() is None and _healthy(api), timeout=30,
                       what="an API process to serve")
        yield apis, redis.Redis.from_url(server.url)
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(10)
        server.stop()


def _healthy(api: Http) -> bool:
    try:
        return api.get("/health").status == 200
    except OSError:
        return False


def _status(api: Http, token: str) -> int:
    """An authenticated call that reads nothing else: a stream ticket (one SET)."""
    return api.post("/stream-tickets", token=token).status


def _lookups(store: redis.Redis) -> int:
    """How many token lookups (GET) Redis has served."""
    return store.info("commandstats").get("cmdstat_get", {}).get("calls", 0)


def _answers_from_memory(api: Http, store: redis.Redis, token: str) -> bool:
    """Whether the process authenticates ``token`` without asking Redis (its subscriber hears revocations)."""
    before = _lookups(store)
    served = [_status(api, token) for _ in range(WARM_REQUESTS)]
    return served == [201] * WARM_REQUESTS and _lookups(store) == before


def test_a_rotated_token_is_refused_by_every_process_within_moments(two_apis) -> None:
    apis, store = two_apis
    registered = apis[0].post("/players", {"name": "rotor"})
    assert registered.status == 201
    old = registered.body["token"]
    for api in apis:  # warm both caches, and wait until each answers the old token from memory
        assert wait_for(lambda api=api: _answers_from_memory(api, store, old), bool, seconds=15), \
            "a process kept asking Redis for a remembered token"

    rotated = apis[1].post("/players/me/token", token=old)
    refused_at = time.monotonic()
    assert rotated.status == 201 and rotated.body["token"] != old
    assert rotated.headers["cache-control"] == "private, no-store"
    new = rotated.body["token"]
    for api in apis:  # a liveness bound: the contract's second is a property of the push, not asserted here
        wait_until(lambda api=api: _status(api, old) == 401, timeout=10, what="a process to refuse the old token")
        assert _status(api, new) == 201
    print(f"every process refused the rotated token within {time.monotonic() - refused_at:.3f} s")
    for api in apis:
        refusal = api.post("/stream-tickets", token=old)
        assert refusal.status == 401 and refusal.body["error"] == "UNAUTHENTICATED"
        assert wait_for(lambda api=api: _answers_from_memory(api, store, new), bool, seconds=15)


def _open_player_stream(api: Http, player_id: str, token: str) -> http.client.HTTPResponse:
    """The player's live stream, opened with its token in the header, its first message read."""
    connection = http.client.HTTPConnection(api.host, api.port, timeout=10)
    connection.request("GET", f"/players/{player_id}/stream", headers={"Authorization": f"Bearer {token}"})
    opened = connection.getresponse()
    assert opened.status == 200 and opened.readline().startswith(b"retry:")
    return opened


def _ends_within(stream: http.client.HTTPResponse, seconds: float) -> bool:
    """Read the stream (keep-alives come every second here); True once the server closed it, within ``seconds``."""
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            if not stream.readline():
                return True
    except TimeoutError:
        return False
    return False


def test_a_revoked_token_opens_no_stream_and_ends_the_ones_it_opened(two_apis) -> None:
    apis, _ = two_apis
    registered = apis[0].post("/players", {"name": "streamer"})
    old, player_id = registered.body["token"], registered.body["id"]
    ticket = apis[0].post("/stream-tickets", token=old).body["ticket"]  # asked before the rotation, unused
    streams = [_open_player_stream(api, player_id, old) for api in apis]

    assert apis[0].post("/players/me/token", token=old).status == 201
    for stream in streams:  # each process heard the revocation: its stream ends at the next keep-alive
        assert _ends_within(stream, seconds=15), "a revoked token's stream went on"
    refused = apis[1].get(f"/players/{player_id}/stream?ticket={ticket}")
    assert refused.status == 401 and refused.body["error"] == "UNAUTHENTICATED"
