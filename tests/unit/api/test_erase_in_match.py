"""ERASE_IN_MATCH: a seated player's erasure resigns their match (the default) or is refused until it ends."""
from __future__ import annotations

import pytest

from services.projector.catchup.catching_up import catch_up
from services.projector.catchup.projector_context import ProjectorContext
from shared import keys
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels
from tests.unit.api.support import fake_app


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _seated(http) -> tuple[dict, dict, str]:
    alice, bob = (http.post("/players", json={"name": name}).get_json() for name in ("Alice", "Bob"))
    match_id = http.post("/matches", json={}, headers=bearer(alice["token"])).get_json()["id"]
    assert http.post(f"/matches/{match_id}/join", json={}, headers=bearer(bob["token"])).status_code in (200, 201)
    # The erasure finds the player's matches in their lists: the projector's, as a worker would write them.
    catch_up(match_id, ProjectorContext(RedisEventStore(http.application.extensions["truc"].redis),
                                        ReadModels(http.application.extensions["truc"].redis)))
    return alice, bob, match_id


@pytest.mark.parametrize("setting", ["refuse"])
def test_a_refused_erasure_answers_409_and_records_nothing(fake_redis, setting) -> None:
    http = fake_app(fake_redis, {"ERASE_IN_MATCH": setting, "RATE_LIMITS": "off"}).test_client()
    alice, _, match_id = _seated(http)
    length = fake_redis.xlen(keys.match_events(match_id))
    answer = http.delete("/players/me", headers=bearer(alice["token"]))
    assert answer.status_code == 409 and answer.get_json()["error"] == "IN_A_MATCH"
    assert fake_redis.xlen(keys.match_events(match_id)) == length  # nothing recorded
    assert http.post("/stream-tickets", headers=bearer(alice["token"])).status_code == 201  # still a player


def test_by_default_an_erasure_resigns_the_match_and_the_token_stops_working(fake_redis) -> None:
    http = fake_app(fake_redis, {"RATE_LIMITS": "off"}).test_client()
    alice, bob, match_id = _seated(http)
    assert http.delete("/players/me", headers=bearer(alice["token"])).status_code == 204
    assert http.post("/stream-tickets", headers=bearer(alice["token"])).status_code == 401
    last = fake_redis.xrevrange(keys.match_events(match_id), count=1)[0][1]
    assert last[b"t"] in (b"match_won", b"match_cancelled")  # resigned (R31) or aborted in round 1
