"""A player's own stream: their awaiting matches at once, then each notice their feed is told."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import fakeredis
import orjson
import pytest

from services.api import create_app
from services.api import player_stream as sse
from services.projector.catchup.catching_up import catch_up
from services.projector.catchup.projector_context import ProjectorContext
from shared import keys
from shared.config import Config
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels
from tests.unit.rules.given import deck_for

# Round 1 with dealer B: A holds 7C 8C KC, B holds JH QH AH (A wins every trick, and leads the next).
DECKS = [list(deck_for("JH QH AH", "7C 8C KC"))]


@dataclass
class Seated:
    id: str
    headers: dict


class Table:
    """The API on fakeredis, with a projector catching matches up when told to."""

    def __init__(self, client: Any, queue_client: Any = None, **env: str) -> None:
        config = Config.from_env({"REDIS_URL": "redis://unused", **env})
        self.app = create_app(config, redis_client=client, queue_client=queue_client or client)
        self.http = self.app.test_client()
        self.projector = ProjectorContext(RedisEventStore(client), ReadModels(client))

    def register(self, name: str) -> Seated:
        body = self.http.post("/players", json={"name": name}).get_json()
        return Seated(body["id"], {"Authorization": f"Bearer {body['token']}"})

    def match(self, a: Seated, b: Seated) -> dict:
        """A match of ``a`` against ``b``, round 1 dealt (``DECKS``) and projected; ``a``'s view."""
        created = self.http.post("/matches", json={"first_dealer": "B", "decks": DECKS}, headers=a.headers)
        match_id = created.get_json()["id"]
        self.http.post(f"/matches/{match_id}/join", json={"accept_custom": True}, headers=b.headers)
        catch_up(match_id, self.projector)
        return self.http.get(f"/matches/{match_id}", headers=a.headers).get_json()

    def play(self, match_id: str, seated: Seated) -> None:
        """``seated`` plays their first playable card; the projector catches up."""
        shown = self.http.get(f"/matches/{match_id}", headers=seated.headers).get_json()
        card = next(action for action in shown["legal_actions"] if action["type"] == "play")
        assert self.http.post(f"/matches/{match_id}/actions", json=card, headers=seated.headers).status_code == 200
        catch_up(match_id, self.projector)


def messages(chunk: bytes) -> list[tuple[str | None, str | None, dict | None]]:
    """(event, id, data) of each message in ``chunk``; a position alone as (None, id, None)."""
    found = []
    for block in chunk.decode().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if line and not line.startswith(":"))
        if "event" in lines or "id" in lines:
            data = orjson.loads(lines["data"]) if "data" in lines else None
            found.append((lines.get("event"), lines.get("id"), data))
    return found


def turns(chunk: bytes) -> list[dict]:
    return [data for event, _, data in messages(chunk) if event == "turn"]


def latest(table: Table, seated: Seated) -> str:
    """The id of the latest notice of the player's feed."""
    return table.app.extensions["truc"].redis.xrevrange(keys.player_feed(seated.id), count=1)[0][0].decode()


@pytest.fixture
def table(fake_redis: fakeredis.FakeRedis) -> Table:
    return Table(fake_redis)


def test_only_the_players_own_token_opens_their_stream(table: Table) -> None:
    alice, bob = table.register("alice"), table.register("bob")
    url = f"/players/{alice.id}/stream"
    nobody = table.http.get(url)
    assert nobody.status_code == 401 and nobody.get_json()["error"] == "UNAUTHENTICATED"
    assert table.http.get(url, headers={"Authorization": "Bearer forged"}).status_code == 401
    someone_else = table.http.get(url, headers=bob.headers)
    assert someone_else.status_code == 403 and set(someone_else.get_json()) == {"error", "message"}
    assert someone_else.get_json()["error"] == "NOT_A_PLAYER"
    ticket = table.http.post("/stream-tickets", headers=alice.headers).get_json()["ticket"]
    opened = table.http.get(f"{url}?ticket={ticket}", buffered=False)  # as a browser's EventSource sends it
    assert opened.status_code == 200 and opened.mimetype == "text/event-stream"
    opened.close()
    assert table.http.get(url, headers={**alice.headers, "Last-Event-ID": "nonsense"}).status_code == 400


def test_the_matches_awaiting_the_player_come_at_once(table: Table) -> None:
    alice, bob = table.register("alice"), table.register("bob")
    first = table.match(alice, bob)  # dealer B: A leads
    second = table.match(bob, alice)  # dealer B, alice sits B: bob leads
    for seated, awaited in ((alice, first), (bob, second)):
        stream = table.http.get(f"/players/{seated.id}/stream", headers=seated.headers, buffered=False)
        told = messages(next(stream.response))
        deadline = (awaited.get("clock") or {}).get("deadline")  # the view's clock, once the engine keeps one
        assert told == [
            ("turn", None, {"match_id": awaited["id"], "version": awaited["version"], "deadline": deadline}),
            (None, latest(table, seated), None),  # then the position of their feed it reads on from, alone
        ]
        stream.close()
    assert table.app.extensions["truc"].streams.open == 0


def test_a_notice_told_after_the_stream_opened_arrives_with_its_feed_position(table: Table) -> None:
    alice, bob = table.register("alice"), table.register("bob")
    match = table.match(alice, bob)
    stream = table.http.get(f"/players/{bob.id}/stream", headers=bob.headers, buffered=False)
    assert turns(next(stream.response)) == []  # alice leads: bob is not awaited
    table.play(match["id"], alice)
    told = messages(next(stream.response))
    assert [(event, data["match_id"], data["version"]) for event, _, data in told] == \
        [("turn", match["id"], match["version"] + 1)]
    assert told[0][1] == latest(table, bob)
    stream.close()


def test_a_reconnect_reads_on_from_its_last_event_id(table: Table) -> None:
    alice, bob = table.register("alice"), table.register("bob")
    match = table.match(alice, bob)
    url = f"/players/{bob.id}/stream"
    stream = table.http.get(url, headers=bob.headers, buffered=False)
    [(_, seen, _)] = messages(next(stream.response))  # alice leads: only the position
    stream.close()
    table.play(match["id"], alice)  # bob is told his turn
    table.play(match["id"], bob)  # alice takes the trick and leads: bob is awaited nowhere now
    again = table.http.get(url, headers={**bob.headers, "Last-Event-ID": seen}, buffered=False)
    assert messages(next(again.response)) == [(None, seen, None)]  # no scan: it reads on from ``seen``
    resumed = messages(next(again.response))
    assert [(event, data["version"]) for event, _, data in resumed] == [("turn", match["version"] + 1)]
    again.close()


def test_a_reconnect_the_feed_no_longer_covers_gets_the_awaiting_matches_again(table: Table) -> None:
    alice, bob = table.register("alice"), table.register("bob")
    match = table.match(alice, bob)
    stream = table.http.get(f"/players/{alice.id}/stream", headers={**alice.headers, "Last-Event-ID": "1-0"},
                            buffered=False)
    assert [data["match_id"] for data in turns(next(stream.response))] == [match["id"]]
    stream.close()


def test_a_quiet_stream_sends_keep_alives(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sse, "KEEP_ALIVE_SECONDS", 0.05)
    alice = table.register("alice")
    stream = table.http.get(f"/players/{alice.id}/stream", headers=alice.headers, buffered=False)
    assert next(stream.response) == b"retry: 2000\nid: 0-0\n\n"  # nothing awaits: only the position
    assert next(stream.response) == b": keep-alive\n\n"
    stream.close()


def test_player_streams_count_against_the_same_cap_as_match_streams(fake_redis: fakeredis.FakeRedis) -> None:
    table = Table(fake_redis, MAX_STREAMS="1")
    alice, bob = table.register("alice"), table.register("bob")
    match = table.match(alice, bob)
    watching = table.http.get(f"/matches/{match['id']}/stream", headers=alice.headers, buffered=False)
    refused = table.http.get(f"/players/{alice.id}/stream", headers=alice.headers)
    assert refused.status_code == 503 and refused.get_json()["error"] == "STREAMS_BUSY"
    watching.close()
    assert table.http.get(f"/players/{alice.id}/stream", headers=alice.headers, buffered=False).status_code == 200


def test_the_player_stream_is_documented(table: Table) -> None:
    paths = table.http.get("/openapi.json").get_json()["paths"]
    documented = paths["/players/{player_id}/stream"]["get"]
    assert set(documented["responses"]) >= {"200", "401", "403", "429", "503"}
    assert "event: turn" in documented["responses"]["200"]["description"]


def test_both_streams_document_their_refusals(table: Table) -> None:
    paths = table.http.get("/openapi.json").get_json()["paths"]
    for path in ("/matches/{match_id}/stream", "/players/{player_id}/stream"):
        responses = paths[path]["get"]["responses"]
        assert "RATE_LIMITED" in responses["429"]["description"], path
        assert "STREAMS_BUSY" in responses["503"]["description"], path
        assert "Retry-After" in responses["429"]["description"] + responses["503"]["description"], path
