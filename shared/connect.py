"""Redis connections with bounded timeouts, shared by every process."""
from __future__ import annotations

import time

import redis


def connect(url: str) -> redis.Redis:
    """A client for ``url`` (``redis://``, ``rediss://`` or ``unix://``).

    Bounded timeouts: an unreachable Redis must give a prompt error (a 503 from the API),
    never a hung request.
    """
    return redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=2, health_check_interval=30)


def wait_until_reachable(client: redis.Redis, timeout: float = 30.0) -> None:
    """Block until ``client`` answers PING (a process started beside its Redis waits for it)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            client.ping()
            return
        except (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
