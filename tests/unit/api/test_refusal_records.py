"""Refused actions with fresh Idempotency-Keys cannot fill Redis: none are kept for a finished match."""
from __future__ import annotations

from shared import keys
from tests.unit.api.support import fake_app


def test_refusals_in_a_finished_match_record_nothing(fake_redis) -> None:
    # 30 refusals at once: faster than the actions limit lets one player act.
    http = fake_app(fake_redis, {"RATE_LIMITS": "off"}).test_client()
    alice, bob = ({"Authorization": f"Bearer {http.post('/players', json={'name': n}).get_json()['token']}"}
                  for n in ("alice", "bob"))
    options = {"start_scores": [11, 11], "first_dealer": "B"}  # the next round decides the match
    match_id = http.post("/matches", json=options, headers=alice).get_json()["id"]
    http.post(f"/matches/{match_id}/join", json={"accept_custom": True}, headers=bob)
    folded = http.post(f"/matches/{match_id}/actions", json={"type": "fold"}, headers=alice)
    assert folded.status_code == 200 and folded.get_json()["events"][-1]["type"] == "match_won"
    before = fake_redis.hlen(keys.match_tokens(match_id)) + fake_redis.hlen(keys.match_refusals(match_id))

    for n in range(30):
        refused = http.post(f"/matches/{match_id}/actions", json={"type": "fold"},
                            headers={**alice, "Idempotency-Key": f"key-{n}"})
        assert refused.status_code == 409

    after = fake_redis.hlen(keys.match_tokens(match_id)) + fake_redis.hlen(keys.match_refusals(match_id))
    assert after == before


def test_a_refusal_in_a_live_match_is_kept_for_its_retry_and_expires(fake_redis) -> None:
    http = fake_app(fake_redis).test_client()
    alice, bob = ({"Authorization": f"Bearer {http.post('/players', json={'name': n}).get_json()['token']}"}
                  for n in ("alice", "bob"))
    match_id = http.post("/matches", json={"first_dealer": "A"}, headers=alice).get_json()["id"]
    http.post(f"/matches/{match_id}/join", headers=bob)
    request = {"json": {"type": "raise"}, "headers": {**alice, "Idempotency-Key": "once"}}  # not A's turn
    first, retry = (http.post(f"/matches/{match_id}/actions", **request) for _ in range(2))
    assert first.status_code == retry.status_code == 409 and first.get_json() == retry.get_json()
    assert fake_redis.hlen(keys.match_refusals(match_id)) == 1 and fake_redis.ttl(keys.match_refusals(match_id)) > 0
