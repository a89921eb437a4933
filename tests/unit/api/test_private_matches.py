"""A private match (API.md "Private matches"): out of every listing, and, until someone joins it,
answered 404 to every read and join but its creator's and its invite's; its invite never recorded."""
from __future__ import annotations

import orjson
import pytest

from services.projector.catchup.catching_up import catch_up
from services.projector.catchup.projector_context import ProjectorContext
from shared import keys
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels
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


def _every_value(client) -> bytes:
    """Every key and value in Redis, as bytes: where a secret kept out of the store would show."""
    found = []
    for key in client.scan_iter():
        kind = client.type(key)
        found.append(key)
        if kind == b"string":
            found.append(client.get(key))
        elif kind == b"hash":
            found += [item for pair in client.hgetall(key).items() for item in pair]
        elif kind == b"zset":
            found += client.zrange(key, 0, -1)
        elif kind == b"set":
            found += list(client.smembers(key))
        elif kind == b"stream":
            found += [orjson.dumps({k.decode(): v.decode() for k, v in fields.items()})
                      for _, fields in client.xrange(key)]
        elif kind == b"list":
            found += client.lrange(key, 0, -1)
    return b"\n".join(found)


def test_a_private_match_is_in_no_lobby_and_in_no_one_elses_list_of_matches(table) -> None:
    alice, bob = table.player("alice"), table.player("bob")
    hidden = table.private_match(alice)
    public = table.http.post("/matches", json={}, headers=alice).get_json()
    table.project(public["id"])
    listed = [match["id"] for match in table.http.get("/matches").get_json()["matches"]]
    assert listed == [public["id"]]
    lists = {who: [m["id"] for m in table.http.get(f"/players/{hidden['players']['A']['id']}/matches?status=waiting",
                                                   headers=headers).get_json()["matches"]]
             for who, headers in (("alice", alice), ("bob", bob), ("anyone", {}))}
    assert lists == {"alice": [public["id"], hidden["id"]], "bob": [public["id"]], "anyone": [public["id"]]}


@pytest.mark.parametrize("path", ["", "?min_version=2&wait=0.2", "/events", "/replay?version=1", "/stream"])
def test_every_read_of_a_private_waiting_match_but_its_creators_is_not_found(table, path: str) -> None:
    alice, bob = table.player("alice"), table.player("bob")
    match = table.private_match(alice)
    for headers in ({}, bob):
        refused = table.http.get(f"/matches/{match['id']}{path}", headers=headers)
        assert refused.status_code == 404 and refused.get_json()["error"] == "NOT_FOUND"
        assert refused.get_json() == table.http.get(f"/matches/nosuchmatch{path}", headers=headers).get_json()
    if path != "/stream":  # the creator's own stream holds on: it is read below, joined
        assert table.http.get(f"/matches/{match['id']}{path}", headers=alice).status_code == 200


def test_a_view_not_projected_yet_is_hidden_too_and_the_creators_carries_the_invite(table) -> None:
    alice, bob = table.player("alice"), table.player("bob")
    created = table.http.post("/matches", json={"private": True}, headers=alice).get_json()  # no projector step
    assert table.http.get(f"/matches/{created['id']}", headers=bob).status_code == 404
    own = table.http.get(f"/matches/{created['id']}", headers=alice).get_json()
    assert own["invite"] == created["invite"] and len(created["invite"]) == 22
    table.project(created["id"])
    assert table.http.get(f"/matches/{created['id']}", headers=alice).get_json()["invite"] == created["invite"]


def test_the_friend_with_the_invite_reads_the_terms_and_joins_and_no_one_else_does(table) -> None:
    alice, bob, mallory = table.player("alice"), table.player("bob"), table.player("mallory")
    match = table.private_match(alice)
    path, invite = f"/matches/{match['id']}", match["invite"]
    wrong = ("A" if invite[0] != "A" else "B") + invite[1:]
    for body in (None, {}, {"invite": wrong}, {"invite": invite[:-1]}, {"invite": ""}):
        refused = table.http.post(f"{path}/join", json=body, headers=mallory)
        assert refused.status_code == 404 and refused.get_json()["error"] == "NOT_FOUND"
    assert table.http.get(path, headers={**mallory, "Invite": wrong}).status_code == 404
    terms = table.http.get(path, headers={**bob, "Invite": invite})
    assert terms.status_code == 200 and terms.get_json()["rules"]["turn_seconds"] == 60
    assert "invite" not in terms.get_json() and terms.get_json()["you"] is None
    assert [e["type"] for e in table.http.get(f"{path}/events", headers=alice).get_json()["events"]] == [
        "match_created"]  # the refused joins recorded nothing

    joined = table.http.post(f"{path}/join", json={"invite": invite}, headers=bob)
    assert joined.status_code == 200 and joined.get_json()["status"] == "playing" and "invite" not in joined.get_json()
    table.project(match["id"])
    for headers in ({}, mallory, alice):  # joined, it reads like any match, invite gone
        seen = table.http.get(path, headers=headers)
        assert seen.status_code == 200 and "invite" not in seen.get_json()
    assert table.http.get(f"{path}/events").status_code == 200
    assert table.http.get("/matches?status=playing").get_json()["matches"] == []  # still never listed
    assert table.http.post(f"{path}/join", json={"invite": invite}, headers=mallory).get_json()["error"] == "MATCH_FULL"


def test_the_invite_is_recorded_nowhere(table) -> None:
    alice, bob = table.player("alice"), table.player("bob")
    match = table.private_match(alice)
    table.http.post(f"/matches/{match['id']}/join", json={"invite": match["invite"]}, headers=bob)
    table.project(match["id"])
    assert match["invite"].encode() not in _every_value(table.redis)  # no event, read model, key or index
    created = table.http.get(f"/matches/{match['id']}/events").get_json()["events"][0]
    assert created["data"]["private"] is True


def test_a_private_match_against_the_bot_is_refused_and_records_nothing(table) -> None:
    alice = table.player("alice")
    refused = table.http.post("/matches", json={"private": True, "opponent": "bot"}, headers=alice)
    assert refused.status_code == 400 and refused.get_json()["error"] == "INVALID_REQUEST"
    assert "private" in refused.get_json()["fields"]
    assert not list(table.redis.scan_iter(match="truc:{m:*}:events"))
    assert table.http.post("/matches", json={"private": False, "opponent": "bot"}, headers=alice).status_code == 201


def test_the_creator_joining_their_own_private_match_is_told_they_sit_in_it(table) -> None:
    alice = table.player("alice")
    match = table.private_match(alice)
    assert table.http.post(f"/matches/{match['id']}/join", headers=alice).get_json()["error"] == "ALREADY_SEATED"


def test_a_cancelled_private_match_nobody_joined_stays_hidden(table) -> None:
    alice, bob = table.player("alice"), table.player("bob")
    match = table.private_match(alice)
    assert table.http.post(f"/matches/{match['id']}/actions", json={"type": "cancel"}, headers=alice).status_code == 200
    table.project(match["id"])
    assert table.http.get(f"/matches/{match['id']}", headers=bob).status_code == 404
    assert table.http.post(f"/matches/{match['id']}/join", headers=bob).status_code == 404
    assert table.http.get("/matches?status=cancelled").get_json()["matches"] == []
    assert table.http.get(f"/matches/{match['id']}", headers=alice).get_json()["status"] == "cancelled"


def test_the_friend_who_joined_reads_the_match_before_the_projector_has_seated_them(table) -> None:
    alice, bob, mallory = table.player("alice"), table.player("bob"), table.player("mallory")
    match = table.private_match(alice)
    path = f"/matches/{match['id']}"
    assert table.http.post(f"{path}/join", json={"invite": match["invite"]}, headers=bob).status_code == 200
    # Not projected: the lobby line still says the match waits, private; the stream says bob sits in B.
    for wait in ("", "?min_version=3&wait=0.2"):  # the older view, as any read during projection lag
        assert table.http.get(path + wait, headers=bob).status_code == 200
    assert table.http.get(path, headers=mallory).status_code == 200  # joined: it reads like any match


def test_an_answer_to_an_invite_is_kept_by_no_shared_cache(table) -> None:
    alice = table.player("alice")
    match = table.private_match(alice)
    terms = table.http.get(f"/matches/{match['id']}", headers={"Invite": match["invite"]})
    assert terms.status_code == 200
    assert terms.headers["Cache-Control"] == "private, no-store"
    assert {"Invite", "Authorization"} <= {part.strip() for part in terms.headers["Vary"].split(",")}


def test_a_private_match_whose_seed_this_server_lacks_offers_no_invite_and_admits_none(table) -> None:
    alice, bob = table.player("alice"), table.player("bob")
    match = table.private_match(alice)
    table.redis.delete(keys.match_seed(match["id"]))  # as a match imported without its seed ...
    elsewhere = Table(table.redis)  # ... read by a process that never held it
    view = elsewhere.http.get(f"/matches/{match['id']}", headers=alice)
    assert view.status_code == 200 and "invite" not in view.get_json()
    refused = elsewhere.http.post(f"/matches/{match['id']}/join", json={"invite": match["invite"]}, headers=bob)
    assert refused.status_code == 404 and refused.get_json()["error"] == "NOT_FOUND"
