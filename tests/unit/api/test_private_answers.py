"""Answers that depend on who asks: ``Vary: Authorization`` on every answer, and the caller's own
(credentials sent, or a secret in it) ``Cache-Control: private, no-store``; the ETag stays the version."""
from __future__ import annotations

import fakeredis
import pytest

from tests.unit.api.test_player_stream import Table


@pytest.fixture
def table(fake_redis: fakeredis.FakeRedis) -> Table:
    return Table(fake_redis)


def private(reply) -> bool:
    varies = {value.strip() for value in reply.headers.get("Vary", "").split(",")}
    return reply.headers.get("Cache-Control") == "private, no-store" and {"Authorization", "Accept-Language"} <= varies


def varies_with_the_caller(reply) -> bool:
    return "Authorization" in {value.strip() for value in reply.headers.get("Vary", "").split(",")}


def test_a_seat_view_is_private_and_a_spectators_is_not_though_both_carry_the_version_etag(table: Table) -> None:
    alice, bob = table.register("alice"), table.register("bob")
    view = table.match(alice, bob)
    seat = table.http.get(f"/matches/{view['id']}", headers=alice.headers)
    spectator = table.http.get(f"/matches/{view['id']}")
    assert "hand" in seat.get_json()["round"] and "hand" not in spectator.get_json()["round"]
    assert private(seat) and seat.headers["ETag"] == f'"{view["version"]}"' == spectator.headers["ETag"]
    assert varies_with_the_caller(spectator) and "no-store" not in spectator.headers.get("Cache-Control", "")


def test_every_answer_to_a_caller_with_credentials_is_private(table: Table) -> None:
    alice, bob = table.register("alice"), table.register("bob")
    created = table.http.post("/matches", json={"first_dealer": "B"}, headers=alice.headers)  # alice leads
    match_id = created.get_json()["id"]
    joined = table.http.post(f"/matches/{match_id}/join", json={}, headers=bob.headers)
    shown = table.http.get(f"/matches/{match_id}", headers=alice.headers).get_json()
    card = next(action for action in shown["legal_actions"] if action["type"] == "play")
    acted = table.http.post(f"/matches/{match_id}/actions", json=card, headers=alice.headers)
    answers = {
        "create": created, "join": joined, "act": acted,
        "events": table.http.get(f"/matches/{match_id}/events", headers=alice.headers),
        "replay": table.http.get(f"/matches/{match_id}/replay?version=3", headers=alice.headers),
        "ticket": table.http.post("/stream-tickets", headers=alice.headers),
        "refused": table.http.get(f"/matches/{match_id}", headers={"Authorization": "Bearer forged"}),
    }
    assert {name: reply.status_code for name, reply in answers.items()} == {
        "create": 201, "join": 200, "act": 200, "events": 200, "replay": 200, "ticket": 201, "refused": 401}
    assert [name for name, reply in answers.items() if not private(reply)] == []
    assert acted.headers["ETag"] == f'"{acted.get_json()["version"]}"'
    rotated = table.http.post("/players/me/token", headers=alice.headers)
    assert rotated.status_code == 201 and private(rotated)


def test_a_registration_carries_a_token_so_it_is_private_though_it_sent_none(table: Table) -> None:
    registered = table.http.post("/players", json={"name": "carol"})
    assert registered.status_code == 201 and "token" in registered.get_json() and private(registered)


def test_a_stream_opened_with_a_ticket_is_private(table: Table) -> None:
    alice = table.register("alice")
    ticket = table.http.post("/stream-tickets", headers=alice.headers).get_json()["ticket"]
    opened = table.http.get(f"/players/{alice.id}/stream?ticket={ticket}", buffered=False)
    assert opened.status_code == 200 and private(opened)
    opened.close()


def test_public_reads_stay_cacheable(table: Table) -> None:
    for path in ("/scoreboard", "/matches", "/health"):
        reply = table.http.get(path)
        assert reply.status_code == 200 and "no-store" not in reply.headers.get("Cache-Control", "")
        assert varies_with_the_caller(reply)
