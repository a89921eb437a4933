"""Quick pairing and rematches through the API (on fakeredis): seeks pair into dealt, rated matches,
both players are told, seeks are one a player, and a rematch is offered once and made once."""
from __future__ import annotations

import orjson
import pytest

from services.projector.catchup.catching_up import catch_up
from services.projector.catchup.projector_context import ProjectorContext
from shared import keys
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels
from tests.unit.api.support import fake_app


class Lobby:
    def __init__(self, client) -> None:
        self.redis = client
        self.http = fake_app(client, {"MAX_PLAYING": "2"}).test_client()

    def player(self, name: str) -> tuple[str, dict]:
        body = self.http.post("/players", json={"name": name}).get_json()
        return body["id"], {"Authorization": f"Bearer {body['token']}"}

    def told(self, player_id: str, kind: str) -> list[dict]:
        return [orjson.loads(fields[b"data"]) for _, fields in self.redis.xrange(keys.player_feed(player_id))
                if fields[b"type"] == kind.encode()]

    def project(self, match_id: str) -> None:
        catch_up(match_id, ProjectorContext(RedisEventStore(self.redis), ReadModels(self.redis)))


@pytest.fixture
def lobby(fake_redis) -> Lobby:
    return Lobby(fake_redis)


def test_two_rated_seeks_pair_into_one_dealt_rated_match_and_both_are_told(lobby: Lobby) -> None:
    (ana, ana_auth), (ben, ben_auth) = lobby.player("ana"), lobby.player("ben")
    first = lobby.http.post("/seeks", json={"rated": True}, headers=ana_auth)
    assert first.status_code == 201 and first.get_json()["expires_at"]
    assert lobby.http.post("/seeks", json={"rated": True}, headers=ben_auth).status_code == 201
    (to_ana,), (to_ben,) = lobby.told(ana, "paired"), lobby.told(ben, "paired")
    assert to_ana["match_id"] == to_ben["match_id"] and {to_ana["seat"], to_ben["seat"]} == {"A", "B"}
    assert to_ana["seek_id"] == first.get_json()["id"]
    lobby.project(to_ana["match_id"])
    view = lobby.http.get(f"/matches/{to_ana['match_id']}", headers=ana_auth).get_json()
    assert view["status"] == "playing" and view["rated"] is True and view["round"]["hand"]


def test_rated_and_unrated_seeks_do_not_pair(lobby: Lobby) -> None:
    (ana, ana_auth), (ben, ben_auth) = lobby.player("ana"), lobby.player("ben")
    lobby.http.post("/seeks", json={"rated": True}, headers=ana_auth)
    lobby.http.post("/seeks", json={"rated": False}, headers=ben_auth)
    assert lobby.told(ana, "paired") == [] and lobby.told(ben, "paired") == []


def test_one_open_seek_a_player_and_only_the_seeker_withdraws_it(lobby: Lobby) -> None:
    (_, ana_auth), (_, ben_auth) = lobby.player("ana"), lobby.player("ben")
    seek = lobby.http.post("/seeks", json={"rated": False}, headers=ana_auth).get_json()
    again = lobby.http.post("/seeks", json={"rated": True}, headers=ana_auth)
    assert again.status_code == 409 and again.get_json()["error"] == "SEEK_OPEN"
    assert lobby.http.delete(f"/seeks/{seek['id']}", headers=ben_auth).status_code == 404
    assert lobby.http.delete(f"/seeks/{seek['id']}", headers=ana_auth).status_code == 204
    assert lobby.http.delete(f"/seeks/{seek['id']}", headers=ana_auth).get_json()["error"] == "NOT_FOUND"


def test_a_seek_respects_the_cap_on_matches_at_once(lobby: Lobby) -> None:
    _, ana_auth = lobby.player("ana")
    for _ in range(2):
        assert lobby.http.post("/matches", json={}, headers=ana_auth).status_code == 201
    refused = lobby.http.post("/seeks", json={"rated": True}, headers=ana_auth)
    assert refused.status_code == 409 and refused.get_json()["error"] == "TOO_MANY_MATCHES"


@pytest.mark.parametrize("body", [{"rated": True, "rules": {"target": 3}}, {"rated": "yes"}, {}])
def test_bad_seeks_are_refused_with_invalid_request(lobby: Lobby, body: dict) -> None:
    _, ana_auth = lobby.player("ana")
    refused = lobby.http.post("/seeks", json=body, headers=ana_auth)
    assert refused.status_code == 400 and refused.get_json()["error"] == "INVALID_REQUEST"


def test_a_rematch_is_offered_by_one_player_and_made_by_the_other_with_the_dealer_swapped(lobby: Lobby) -> None:
    (ana, ana_auth), (ben, ben_auth) = lobby.player("ana"), lobby.player("ben")
    match = lobby.http.post("/matches", json={"rated": True}, headers=ana_auth).get_json()
    joined = lobby.http.post(f"/matches/{match['id']}/join", json={}, headers=ben_auth).get_json()
    first_dealer = joined["round"]["dealer"]
    early = lobby.http.post(f"/matches/{match['id']}/rematch", json={}, headers=ana_auth)
    assert early.status_code == 409 and early.get_json()["error"] == "MATCH_NOT_FINISHED"
    lobby.http.post(f"/matches/{match['id']}/actions", json={"type": "resign"}, headers=ben_auth)
    offer = lobby.http.post(f"/matches/{match['id']}/rematch", json={}, headers=ana_auth)
    assert offer.status_code == 202 and offer.get_json()["offer"]["by"] == ana
    assert lobby.told(ben, "rematch")[-1] == {"match_id": match["id"], "offered_by": ana}
    made = lobby.http.post(f"/matches/{match['id']}/rematch", json={}, headers=ben_auth)
    assert made.status_code == 201
    rematch = made.get_json()
    assert rematch["status"] == "playing" and rematch["rated"] is True and rematch["you"] == "B"
    assert rematch["round"]["dealer"] == {"A": "B", "B": "A"}[first_dealer]
    twice = lobby.http.post(f"/matches/{match['id']}/rematch", json={}, headers=ana_auth)
    assert twice.status_code == 201 and twice.get_json()["id"] == rematch["id"]  # made once
    assert {n["match_id"] for n in lobby.told(ana, "rematch")} == {rematch["id"]}


def _rated_match(lobby: Lobby, tag: str, rated: bool = True) -> tuple[str, dict, dict]:
    (_, ana_auth), (_, ben_auth) = lobby.player(f"ana{tag}"), lobby.player(f"ben{tag}")
    match = lobby.http.post("/matches", json={"rated": rated}, headers=ana_auth).get_json()
    lobby.http.post(f"/matches/{match['id']}/join", json={}, headers=ben_auth)
    return match["id"], ana_auth, ben_auth


def _fold_round_one(lobby: Lobby, match_id: str, *seats: dict) -> None:
    for auth in seats:
        view = lobby.http.get(f"/matches/{match_id}", headers=auth).get_json()
        if {"type": "fold"} in view["legal_actions"]:
            folded = lobby.http.post(f"/matches/{match_id}/actions", json={"type": "fold"}, headers=auth)
            assert folded.status_code == 200
            return


def test_only_a_rated_result_past_round_one_moves_ratings(lobby: Lobby) -> None:
    ratings = ReadModels(lobby.redis).ratings()
    aborted, _, ben = _rated_match(lobby, "1")
    lobby.project(aborted)
    lobby.http.post(f"/matches/{aborted}/actions", json={"type": "resign"}, headers=ben)  # before round 1 ends
    lobby.project(aborted)
    unrated, ana2, ben2 = _rated_match(lobby, "2", rated=False)
    lobby.project(unrated)
    _fold_round_one(lobby, unrated, ana2, ben2)
    lobby.http.post(f"/matches/{unrated}/actions", json={"type": "resign"}, headers=ben2)
    lobby.project(unrated)
    assert ratings.results() == []
    rated, ana3, ben3 = _rated_match(lobby, "3")
    lobby.project(rated)
    _fold_round_one(lobby, rated, ana3, ben3)
    lobby.http.post(f"/matches/{rated}/actions", json={"type": "resign"}, headers=ben3)
    lobby.project(rated)
    (result,) = ratings.results()
    assert result.match_id == rated and result.a_won
    assert ratings.rating(result.player_a).rating.value > 1500 > ratings.rating(result.player_b).rating.value
