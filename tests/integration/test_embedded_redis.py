"""The embedded redis-server: starts, stops, and keeps acknowledged appends across kill -9."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import redis

from services.embedded_redis import EmbeddedRedis, free_port, redis_server_binary
from shared.eventstore import NewEvent, RedisEventStore


def test_the_server_runs_with_aof_in_its_data_dir_and_stops_on_request(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path) as server:
        client = redis.Redis.from_url(server.url, decode_responses=True)
        assert client.ping()
        assert server.url == f"redis://127.0.0.1:{server.port}/0"
        config = client.config_get("*")
        assert (config["appendonly"], config["appendfsync"]) == ("yes", "everysec")
        assert Path(config["dir"]) == tmp_path.resolve()
        assert config["save"] == ""
        client.close()
    assert not server.running
    assert (tmp_path / "appendonly.aof").exists()


def test_an_acknowledged_append_survives_kill_9_with_appendfsync_always(tmp_path: Path) -> None:
    events = [NewEvent("Counted", {"i": i, "text": "é"}) for i in range(40)]
    with EmbeddedRedis(tmp_path, appendfsync="always") as server:
        store = RedisEventStore(redis.Redis.from_url(server.url))
        for version, event in enumerate(events):
            store.append("m1", [event], version)
        server.kill()  # no shutdown, no final flush: only what fsync already wrote
        assert not server.running

    with EmbeddedRedis(tmp_path, appendfsync="always") as restarted:
        store = RedisEventStore(redis.Redis.from_url(restarted.url))
        assert store.version("m1") == 40
        assert [ev.data for ev in store.read("m1")] == [ev.data for ev in events]
        assert list(store.unprojected()) == ["m1"]  # the mark is durable too
        assert store.append("m1", [NewEvent("Counted", {"i": 40})], 40) == 41


def test_the_module_entry_point_becomes_redis_server_and_exits_on_sigterm(tmp_path: Path) -> None:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "services.embedded_redis", "--port", str(port),
         "--data-dir", str(tmp_path / "data")],
        stdout=subprocess.DEVNULL,
    )
    try:
        client = redis.Redis(port=port, socket_connect_timeout=0.2)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                assert time.monotonic() < deadline, "redis-server did not come up"
                time.sleep(0.01)
        # exec'd, not wrapped: the pid we started is redis-server itself.
        assert os.readlink(f"/proc/{process.pid}/exe") == os.path.realpath(redis_server_binary())
        client.close()
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
