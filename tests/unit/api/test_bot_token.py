"""The bot's token is the configuration's, and only the current one: rotating it revokes the old."""
from __future__ import annotations

import fakeredis
import pytest

from services.api.__main__ import seat_the_bot
from shared.bot import WeakBotTokenError, checked_bot_token
from tests.unit.api.support import fake_app

OLD = "an-old-and-leaked-bot-secret-0123456789"
NEW = "a-brand-new-bot-secret-9876543210abcdef"


def _app(client, token: str | None):
    return fake_app(client, {"BOT_TOKEN": token} if token else {}).test_client()


def _creates_as_bot(http, token: str) -> int:
    return http.post("/matches", json={}, headers={"Authorization": f"Bearer {token}"}).status_code


@pytest.fixture
def redis_client():
    return fakeredis.FakeRedis(server=fakeredis.FakeServer())


def test_a_rotated_bot_token_stops_working_and_the_new_one_works(redis_client) -> None:
    seat_the_bot(redis_client, OLD)
    assert _creates_as_bot(_app(redis_client, OLD), OLD) == 201
    seat_the_bot(redis_client, NEW)  # the API restarted with a new BOT_TOKEN
    http = _app(redis_client, NEW)
    assert _creates_as_bot(http, OLD) == 401
    assert _creates_as_bot(http, NEW) == 201


def test_starting_without_a_bot_token_revokes_the_last_one(redis_client) -> None:
    seat_the_bot(redis_client, OLD)
    seat_the_bot(redis_client, None)
    assert _creates_as_bot(_app(redis_client, None), OLD) == 401


def test_the_bot_seated_in_a_process_revokes_the_token_it_replaces(redis_client) -> None:
    old_http = _app(redis_client, OLD)
    assert old_http.post("/matches", json={"opponent": "bot"},
                         headers={"Authorization": f"Bearer {_register(old_http)}"}).status_code == 201
    new_http = _app(redis_client, NEW)
    assert new_http.post("/matches", json={"opponent": "bot"},
                         headers={"Authorization": f"Bearer {_register(new_http, 'bob')}"}).status_code == 201
    assert _creates_as_bot(new_http, OLD) == 401


def _register(http, name: str = "alice") -> str:
    return http.post("/players", json={"name": name}).get_json()["token"]


@pytest.mark.parametrize("weak", ["change-this-bot-secret", "CHANGEME", "short-secret"])
def test_known_defaults_and_short_tokens_are_refused(weak: str) -> None:
    with pytest.raises(WeakBotTokenError):
        checked_bot_token(weak)
    assert checked_bot_token(NEW) == NEW and checked_bot_token(None) is None


def test_an_api_with_a_weak_token_runs_no_bot(redis_client) -> None:
    http = _app(redis_client, "change-this-bot-secret")
    reply = http.post("/matches", json={"opponent": "bot"}, headers={"Authorization": f"Bearer {_register(http)}"})
    assert reply.status_code == 503 and reply.get_json()["error"] == "BOT_UNAVAILABLE"
    assert _creates_as_bot(http, "change-this-bot-secret") == 401
