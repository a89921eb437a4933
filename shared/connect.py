"""Redis connections with bounded timeouts, shared by every process (one server's client:
:class:`~shared.lean_redis.LeanRedis`)."""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import redis
from redis.cluster import RedisCluster
from redis.connection import parse_url

from shared.config import is_cluster_url
from shared.lean_redis import LeanRedis


def connect(
    url: str, max_connections: int | None = None, count: Callable[[], None] | None = None,
) -> redis.Redis | RedisCluster:
    """A client for ``url``: ``redis://``, ``rediss://`` or ``unix://`` for one server, or
    ``redis-cluster://host:port`` (``rediss-cluster://``) for a Redis Cluster, found from
    any of its nodes. The event store and read models run on either; RQ needs one server.

    Bounded timeouts: an unreachable Redis must give a prompt error (a 503 from the API),
    never a hung request. ``max_connections`` bounds one server's pool (the API's: thousands
    of greenlets must not open thousands of connections); a caller past it waits for a free
    connection, up to the same timeout. ``count``, if given, is called at every round trip
    to one server (a command or a whole pipeline sent; the benchmark's counter).
    """
    timeouts: dict[str, Any] = {"socket_timeout": 5, "socket_connect_timeout": 2}
    if is_cluster_url(url):
        scheme, rest = url.split("://", 1)
        return RedisCluster.from_url(f"{scheme.removesuffix('-cluster')}://{rest}", **timeouts)
    if count is not None:
        timeouts["connection_class"] = _counting(parse_url(url).get("connection_class", redis.Connection), count)
    if max_connections is not None:
        pool = redis.BlockingConnectionPool.from_url(
            url, max_connections=max_connections, timeout=timeouts["socket_timeout"], health_check_interval=30,
            **timeouts)
        return LeanRedis.from_pool(pool)
    return LeanRedis.from_url(url, health_check_interval=30, **timeouts)


def _counting(base: type[redis.Connection], count: Callable[[], None]) -> type[redis.Connection]:
    """``base`` (the URL's connection class) calling ``count`` at every request it sends:
    one command, or one pipeline whole, is one round trip."""
    class Counting(base):  # type: ignore[valid-type, misc]
        def send_packed_command(self, command: Any, check_health: bool = True) -> None:
            count()
            super().send_packed_command(command, check_health)
    return Counting


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


def is_cluster_client(client: object) -> bool:
    """Whether ``client`` talks to a Redis Cluster (its keys then live in slots)."""
    return isinstance(client, RedisCluster)


def learn_slots_again(client: object) -> bool:
    """On a cluster, ask for the slot map anew (a node may be gone: a failover); False if no node
    answered yet (not an error: ask again later). Off a cluster, nothing to learn: True."""
    if not is_cluster_client(client):
        return True
    try:
        client.nodes_manager.initialize()
    except (redis.RedisError, OSError):
        return False
    return True


def node_client(client: Any, key: str) -> Any:
    """The client of the one server that owns ``key`` (``client`` itself off a cluster)."""
    if not is_cluster_client(client):
        return client
    return client.get_redis_connection(client.get_node_from_key(key))
