"""The benchmark's count of Redis round trips: one per command, one per pipeline whole,
kept per process in files that another process sums (``services/api/round_trips.py``)."""
from __future__ import annotations

import os
from pathlib import Path

from services.api.round_trips import RoundTripCounter, round_trips
from services.embedded_redis import EmbeddedRedis
from shared.connect import connect


def test_a_command_and_a_pipeline_are_one_round_trip_each(redis_server: EmbeddedRedis, tmp_path: Path) -> None:
    client = connect(redis_server.url, max_connections=4, count=RoundTripCounter(tmp_path))
    client.ping()  # the connection's own handshake is counted too: start after it
    before = round_trips(tmp_path)
    client.set("round-trips", 1)
    assert round_trips(tmp_path) == before + 1
    with client.pipeline(transaction=False) as pipe:
        pipe.get("round-trips").incr("round-trips").get("round-trips")
        assert pipe.execute() == [b"1", 2, b"2"]
    assert round_trips(tmp_path) == before + 2


def test_every_process_counts_in_its_own_file_and_the_sum_sees_them_all(
    redis_server: EmbeddedRedis, tmp_path: Path,
) -> None:
    client = connect(redis_server.url, count=RoundTripCounter(tmp_path))
    client.ping()
    before = round_trips(tmp_path)
    child = os.fork()
    if child == 0:  # as a gunicorn worker forked after the app was built
        try:
            client.connection_pool.reset()
            for _ in range(3):
                client.get("round-trips")
        finally:
            os._exit(0)
    os.waitpid(child, 0)
    client.get("round-trips")
    assert len(list((tmp_path / "round-trips").iterdir())) == 2
    assert round_trips(tmp_path) >= before + 4  # the child's 3 (and its new connection's handshake) and ours
