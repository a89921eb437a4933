"""Fixtures of the projector's unit tests: an event store and read models on fakeredis."""

from __future__ import annotations

from collections.abc import Iterator

import fakeredis
import pytest

from services.projector import jobs
from services.projector.catchup.projector_context import ProjectorContext
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels

FIXED_AT = 1_767_225_600_000  # 2026-01-01T00:00:00Z: stored timestamps do not depend on the clock


@pytest.fixture
def store(fake_redis: fakeredis.FakeRedis) -> RedisEventStore:
    return RedisEventStore(fake_redis, clock=lambda: FIXED_AT)


@pytest.fixture
def readmodels(fake_redis: fakeredis.FakeRedis) -> ReadModels:
    return ReadModels(fake_redis)


@pytest.fixture
def context(store: RedisEventStore, readmodels: ReadModels) -> ProjectorContext:
    """One worker's context (its own fold cache)."""
    return ProjectorContext(store, readmodels)


@pytest.fixture
def process_context(context: ProjectorContext) -> Iterator[ProjectorContext]:
    """``context`` installed as the process's, as a worker does; removed afterwards."""
    jobs.use_context(context)
    yield context
    jobs.use_context(None)
