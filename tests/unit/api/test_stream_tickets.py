"""Stream tickets: a browser's stream opens with a single-use, short-lived ticket, never a token in its URL."""
from __future__ import annotations

import hashlib
from datetime import UTC, datetime

import fakeredis
import pytest

from shared import keys
from tests.unit.api.test_limits import Api, assert_limited
from tests.unit.api.test_player_stream import Seated, Table, messages
from tests.waiting import wait_until


@pytest.fixture
def table(fake_redis: fakeredis.FakeRedis) -> Table:
    return Table(fake_redis)


def ticket_of(table: Table, seated: Seated) -> str:
    issued = table.http.post("/stream-tickets", headers=seated.headers)
    assert issued.status_code == 201
    return issued.get_json()["ticket"]


def first_view(table: Table, path: str) -> dict:
    opened = table.http.get(path, buffered=False)
    assert opened.status_code == 200 and opened.mimetype == "text/event-stream"
    chunk = next(opened.response)
    opened.close()
    return next(data for event, _, data in messages(chunk) if event == "view")


def refused(reply, code: str = "UNAUTHENTICATED", status: int = 401) -> bool:
    return reply.status_code == status and reply.get_json()["error"] == code and reply.get_json()["message"]


def test_a_ticket_expires_in_about_a_minute_and_only_its_hash_is_stored(table: Table, fake_redis) -> None:
    alice = table.register("alice")
    issued = table.http.post("/stream-tickets", headers=alice.headers)
    body = issued.get_json()
    assert issued.status_code == 201 and set(body) == {"ticket", "expires_at"} and len(body["ticket"]) >= 32
    expires = datetime.fromisoformat(body["expires_at"].replace("Z", "+00:00"))
    assert 50 <= (expires - datetime.now(UTC)).total_seconds() <= 61
    key = keys.stream_ticket(hashlib.sha256(body["ticket"].encode()).hexdigest())
    token_hash = hashlib.sha256(alice.headers["Authorization"].split()[1].encode()).hexdigest()
    assert fake_redis.get(key) == f"{alice.id} {token_hash}".encode() and 0 < fake_redis.ttl(key) <= 60
    assert not [name for name in fake_redis.keys("*") if body["ticket"].encode() in name]
    assert not [name for name in fake_redis.keys("*") if fake_redis.type(name) == b"string"
                and fake_redis.get(name) == body["ticket"].encode()]


def test_a_ticket_needs_a_token(table: Table) -> None:
    assert refused(table.http.post("/stream-tickets"))
    assert refused(table.http.post("/stream-tickets", headers={"Authorization": "Bearer forged"}))


def test_a_ticket_opens_the_match_stream_as_its_player_once(table: Table) -> None:
    alice, bob = table.register("alice"), table.register("bob")
    view = table.match(alice, bob)
    path = f"/matches/{view['id']}/stream"
    ticket = ticket_of(table, alice)
    seen = first_view(table, f"{path}?ticket={ticket}")
    assert seen["you"] == "A" and seen["round"]["hand"] == view["round"]["hand"]
    assert refused(table.http.get(f"{path}?ticket={ticket}"))  # used: a copy from a log opens nothing
    spectator = first_view(table, path)  # no ticket: a spectator
    assert spectator.get("you") is None and "hand" not in spectator["round"]


def test_a_ticket_opens_its_players_own_stream_and_no_one_elses(table: Table) -> None:
    alice, bob = table.register("alice"), table.register("bob")
    opened = table.http.get(f"/players/{alice.id}/stream?ticket={ticket_of(table, alice)}", buffered=False)
    assert opened.status_code == 200 and opened.mimetype == "text/event-stream"
    opened.close()
    assert refused(table.http.get(f"/players/{bob.id}/stream?ticket={ticket_of(table, alice)}"), "NOT_A_PLAYER", 403)


def test_unknown_and_expired_tickets_are_refused(table: Table, fake_redis) -> None:
    alice = table.register("alice")
    assert refused(table.http.get(f"/players/{alice.id}/stream?ticket=made-up"))
    ticket = ticket_of(table, alice)
    key = keys.stream_ticket(hashlib.sha256(ticket.encode()).hexdigest())
    fake_redis.pexpire(key, 1)
    wait_until(lambda: not fake_redis.exists(key), timeout=5, what="the ticket to expire")
    assert refused(table.http.get(f"/players/{alice.id}/stream?ticket={ticket}"))


def test_a_token_in_a_stream_url_is_refused_even_a_valid_one(table: Table) -> None:
    alice, bob = table.register("alice"), table.register("bob")
    view = table.match(alice, bob)
    token = alice.headers["Authorization"].removeprefix("Bearer ")
    for path in (f"/matches/{view['id']}/stream", f"/players/{alice.id}/stream"):
        reply = table.http.get(f"{path}?token={token}")
        assert refused(reply) and "ticket" in reply.get_json()["message"]
        assert refused(table.http.get(f"{path}?token={token}", headers=alice.headers))


def test_the_header_wins_over_a_ticket_which_stays_unused(table: Table) -> None:
    alice, bob = table.register("alice"), table.register("bob")
    view = table.match(alice, bob)
    ticket = ticket_of(table, bob)
    opened = table.http.get(f"/matches/{view['id']}/stream?ticket={ticket}", headers=alice.headers, buffered=False)
    chunk = next(opened.response)
    opened.close()
    assert next(data for event, _, data in messages(chunk) if event == "view")["you"] == "A"
    assert first_view(table, f"/matches/{view['id']}/stream?ticket={ticket}")["you"] == "B"


def test_a_ticket_refusal_is_in_the_callers_language(table: Table) -> None:
    alice = table.register("alice")
    english = table.http.get(f"/players/{alice.id}/stream?ticket=made-up").get_json()["message"]
    dutch = table.http.get(f"/players/{alice.id}/stream?ticket=made-up", headers={"Accept-Language": "nl"})
    assert refused(dutch) and dutch.get_json()["message"] != english and "ticket" in dutch.get_json()["message"]


def test_the_new_endpoints_are_documented(table: Table) -> None:
    document = table.http.get("/openapi.json").get_json()
    assert set(document["paths"]["/stream-tickets"]) == {"post"}
    assert "201" in document["paths"]["/stream-tickets"]["post"]["responses"]
    assert "201" in document["paths"]["/players/me/token"]["post"]["responses"]
    parameters = document["paths"]["/matches/{match_id}/stream"]["get"]["parameters"]
    assert {"ticket", "token"} <= {parameter["name"] for parameter in parameters}
    assert "401" in document["paths"]["/matches/{match_id}/stream"]["get"]["responses"]



def test_tickets_and_rotations_are_limited_per_player(fake_redis) -> None:
    api = Api(fake_redis, CREDENTIALS_PER_MINUTE="2")
    alice, bob = api.player("alice"), api.player("bob")
    assert [api.http.post("/stream-tickets", headers=alice).status_code for _ in range(2)] == [201, 201]
    assert_limited(api.http.post("/stream-tickets", headers=alice), "credentials", 2)
    assert_limited(api.http.post("/players/me/token", headers=alice), "credentials", 2)
    assert api.http.post("/stream-tickets", headers=bob).status_code == 201  # another player is served
    api.clock.now += 60_000
    assert api.http.post("/players/me/token", headers=alice).status_code == 201
