"""POST /matches takes the bot's level (API.md "Bots"): the four levels are accepted, any
other value, or a level without the bot, is 400 INVALID_REQUEST, naming the field; the lobby's
lines say a bot match's level."""
from __future__ import annotations

import pytest

from services.projector.catchup.catching_up import catch_up
from services.projector.catchup.projector_context import ProjectorContext
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels
from tests.unit.api.support import fake_app

TOKEN = "a-long-enough-bot-secret-for-these-tests-0123"


@pytest.fixture
def http(fake_redis):
    return fake_app(fake_redis, {"BOT_TOKEN": TOKEN}).test_client()


def _auth(http, name: str) -> dict:
    return {"Authorization": f"Bearer {http.post('/players', json={'name': name}).get_json()['token']}"}


@pytest.mark.parametrize("level", ["easy", "medium", "hard", "expert"])
def test_each_level_creates_a_bot_match(http, level):
    reply = http.post("/matches", json={"opponent": "bot", "bot_level": level}, headers=_auth(http, f"p-{level}"))
    assert reply.status_code == 201 and reply.get_json()["status"] == "playing"
    assert reply.get_json()["bot_level"] == level


def test_without_a_level_the_bot_plays_medium_and_a_match_between_players_says_none(http):
    reply = http.post("/matches", json={"opponent": "bot"}, headers=_auth(http, "carol"))
    assert reply.get_json()["bot_level"] == "medium"
    waiting = http.post("/matches", json={}, headers=_auth(http, "dave")).get_json()
    assert "bot_level" not in waiting


@pytest.mark.parametrize("level", ["grandmaster", "", 3, None, "HARD"])
def test_an_unknown_level_is_refused(http, level):
    headers = _auth(http, "alice")
    reply = http.post("/matches", json={"opponent": "bot", "bot_level": level}, headers=headers)
    assert reply.status_code == 400 and reply.get_json()["error"] == "INVALID_REQUEST"
    assert "bot_level" in str(reply.get_json())


@pytest.mark.parametrize("body", [{"bot_level": "hard"}, {"bot_level": "medium", "private": True}])
def test_a_level_without_the_bot_is_refused_and_records_nothing(http, fake_redis, body):
    headers = _auth(http, "frank")
    before = set(fake_redis.scan_iter())
    refused = http.post("/matches?lang=fr", json=body, headers=headers)
    assert refused.status_code == 400 and refused.get_json()["error"] == "INVALID_REQUEST"
    assert refused.get_json()["fields"]["bot_level"] == ["Seule une partie contre le bot a un niveau."]
    assert set(fake_redis.scan_iter()) == before  # no match, no lobby line, no count against the player


def test_a_bot_matchs_lobby_lines_say_its_level_and_a_match_between_players_says_none(http, fake_redis):
    headers = _auth(http, "erin")
    against_bot = http.post("/matches", json={"opponent": "bot", "bot_level": "hard"}, headers=headers).get_json()
    waiting = http.post("/matches", json={}, headers=headers).get_json()
    for match in (against_bot, waiting):
        catch_up(match["id"], ProjectorContext(RedisEventStore(fake_redis), ReadModels(fake_redis)))
    for path in ("/matches?status=playing", "/players/me/matches?status=playing"):
        lines = http.get(path, headers=headers).get_json()["matches"]
        assert [(line["id"], line["bot_level"]) for line in lines] == [(against_bot["id"], "hard")], path
    [line] = http.get("/matches?status=waiting").get_json()["matches"]
    assert line["id"] == waiting["id"] and "bot_level" not in line
