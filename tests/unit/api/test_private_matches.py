"""A private match (API.md "Private matches"): out of every listing, and, until someone joins it,
answered 404 to every read and join but its creator's and its invite's; its invite never recorded."""
from __future__ import annotations

import orjson
import pytest

from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels
from shared.readmodels.catching_up import ProjectorContext, catch_up
from tests.unit.api.support import fake_app

BOT_TOKEN = "a-bot-secret-of-at-least-32-characters-0123"


class Table:
    """The API on fakeredis, with a projector step the test runs when it wants the read models."""

    def __init__(self, client) -> None:
        self.redis = client
        self.http = fake_app(client, {"BOT_TOKEN": BOT_TOKEN}).test_client()

    def player(self, name: str) -> dict:
        token = self.http.post("/players", json={"name": name}).get_json()["token"]
        return {"Authorization": f"Bearer {token}"}

    def project(self, match_id: str) -> None:
        catch_up(match_id, ProjectorContext(RedisEventStore(self.redis), ReadModels(self.redis)))

    def private_match(self, creator: dict) -> dict:
        created = self.http.post("/matches", json={"private": True}, headers=creator)
        assert created.status_code == 201
        self.project(created.get_json()["id"])
        return created.get_json()


@pytest.fixture
def table(fake_redis) -> Table:
    return Table(fake_redis)
