"""A custom match is joined only by a player who accepted its terms, and never counts on the scoreboard."""
from __future__ import annotations

import pytest

from tests.unit.api.support import fake_app


@pytest.fixture
def http(fake_redis):
    return fake_app(fake_redis).test_client()


def _auth(http, name: str) -> dict:
    token = http.post("/players", json={"name": name}).get_json()["token"]
    return {"Authorization": f"Bearer {token}"}


DECK = ["9S", "JS", "KS", "7H", "8H", "9H", "10H", "JH", "QH", "KH", "AH", "7D", "8D", "9D", "10D", "JD",
        "QD", "KD", "AD", "7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC", "7S", "8S", "10S", "QS", "AS"]


@pytest.mark.parametrize("options, said", [
    ({"start_scores": [3, 0]}, "the starting scores 3-0"),
    ({"decks": [DECK]}, "the order of the cards of round 1"),
    ({"decks": [DECK, DECK], "start_scores": [0, 5]}, "rounds 1-2 and the starting scores 0-5"),
])
def test_joining_a_custom_match_without_accepting_its_terms_is_refused_and_records_nothing(
    http, fake_redis, options: dict, said: str,
) -> None:
    alice, bob = _auth(http, "alice"), _auth(http, "bob")
    match = http.post("/matches", json=options, headers=alice).get_json()
    refused = http.post(f"/matches/{match['id']}/join", headers=bob)
    assert refused.status_code == 409
    body = refused.get_json()
    assert body["error"] == "CUSTOM_TERMS" and said in body["message"]
    assert http.get(f"/matches/{match['id']}/events").get_json()["events"][-1]["version"] == match["version"]
    assert http.post(f"/matches/{match['id']}/join", json={"accept_custom": False}, headers=bob).status_code == 409
    joined = http.post(f"/matches/{match['id']}/join", json={"accept_custom": True}, headers=bob)
    assert joined.status_code == 200 and joined.get_json()["status"] == "playing"


def test_an_ordinary_match_is_joined_with_or_without_a_body(http) -> None:
    alice, bob, carol = _auth(http, "alice"), _auth(http, "bob"), _auth(http, "carol")
    first = http.post("/matches", json={}, headers=alice).get_json()["id"]
    second = http.post("/matches", json={}, headers=alice).get_json()["id"]
    assert http.post(f"/matches/{first}/join", headers=bob).status_code == 200
    assert http.post(f"/matches/{second}/join", json={"accept_custom": False}, headers=carol).status_code == 200


def test_a_full_or_own_custom_match_says_so_before_its_terms(http) -> None:
    alice, bob, carol = _auth(http, "alice"), _auth(http, "bob"), _auth(http, "carol")
    match_id = http.post("/matches", json={"start_scores": [1, 1]}, headers=alice).get_json()["id"]
    assert http.post(f"/matches/{match_id}/join", headers=alice).get_json()["error"] == "ALREADY_SEATED"
    http.post(f"/matches/{match_id}/join", json={"accept_custom": True}, headers=bob)
    assert http.post(f"/matches/{match_id}/join", headers=carol).get_json()["error"] == "MATCH_FULL"
