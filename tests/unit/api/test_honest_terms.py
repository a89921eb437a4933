"""POST /matches holds a new match to R33's target (at most 100), and a short clock or a small
target are custom terms: joined only with accept_custom, the refusal saying what was chosen."""
from __future__ import annotations

import pytest

from shared.i18n import translator
from tests.unit.api.support import fake_app


@pytest.fixture
def http(fake_redis):
    return fake_app(fake_redis, {"RATE_LIMITS": "off"}).test_client()


def _auth(http, name: str) -> dict:
    token = http.post("/players", json={"name": name}).get_json()["token"]
    return {"Authorization": f"Bearer {token}"}


def test_a_new_match_with_a_target_over_100_is_refused_with_the_variant_sentence_and_records_nothing(http) -> None:
    alice = _auth(http, "alice")
    refused = http.post("/matches", json={"rules": {"target": 101}}, headers=alice)
    assert refused.status_code == 400 and refused.get_json()["error"] == "INVALID_REQUEST"
    assert refused.get_json()["fields"]["rules"]["target"] == ["target must be a whole number from 1 to 100"]
    assert http.get("/matches?status=waiting").get_json()["matches"] == []
    assert http.post("/matches", json={"rules": {"target": 100}}, headers=alice).status_code == 201


@pytest.mark.parametrize(("rules", "said"), [
    ({"turn_seconds": 5}, "a clock of 5 seconds a turn"),
    ({"target": 1}, "a target of 1 point"),
    ({"target": 5, "turn_seconds": 14}, "a clock of 14 seconds a turn and a target of 5 points"),
])
def test_a_short_clock_or_a_small_target_needs_accept_custom_and_says_so(http, rules: dict, said: str) -> None:
    alice, bob = _auth(http, "alice"), _auth(http, "bob")
    match = http.post("/matches", json={"rules": rules}, headers=alice).get_json()
    assert match["custom"] is True

    refused = http.post(f"/matches/{match['id']}/join", headers=bob)

    body = refused.get_json()
    assert refused.status_code == 409 and body["error"] == "CUSTOM_TERMS"
    assert said in body["message"] and "know your cards" not in body["message"]
    assert http.get(f"/matches/{match['id']}").get_json()["status"] == "waiting"
    joined = http.post(f"/matches/{match['id']}/join", json={"accept_custom": True}, headers=bob)
    assert joined.status_code == 200 and joined.get_json()["custom"] is True


def test_every_term_the_creator_chose_is_listed_in_the_players_language(http) -> None:
    alice, bob = _auth(http, "alice"), _auth(http, "bob")
    body = {"start_scores": [1, 0], "rules": {"turn_seconds": 10, "target": 4}}
    match_id = http.post("/matches", json=body, headers=alice).get_json()["id"]
    refused = http.post(f"/matches/{match_id}/join", headers={**bob, "Accept-Language": "nl"}).get_json()
    tr = translator("nl")
    terms = tr.gettext("{first} and {second}", first=tr.gettext(
        "{first}, {second}", first=tr.gettext("the starting scores {a}-{b}", a=1, b=0),
        second=tr.ngettext("a clock of {count} second a turn", "a clock of {count} seconds a turn", 10)),
        second=tr.ngettext("a target of {count} point", "a target of {count} points", 4))
    assert terms in refused["message"] and "seconden" in refused["message"]


def test_a_fifteen_second_clock_and_a_target_of_six_are_ordinary_terms(http) -> None:
    alice, bob = _auth(http, "alice"), _auth(http, "bob")
    match = http.post("/matches", json={"rules": {"turn_seconds": 15, "target": 6}}, headers=alice).get_json()
    assert match["custom"] is False
    assert http.post(f"/matches/{match['id']}/join", headers=bob).status_code == 200
