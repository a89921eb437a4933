"""Live match views as server-sent events, read off the wire as any client would."""
from __future__ import annotations

import http.client
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import orjson

from services.api import stream as sse
from services.api.fanout import CLIENT_NAME as SUBSCRIBER
from services.api.feeds import live_feeds
from shared.eventstore import RedisEventStore
from shared.fold import FoldedMatch, fold
from shared.readmodels.player_feeds import PlayerFeeds
from shared.subscriber import Subscriber
from tests.unit.rules.given import deck_for
from tests.waiting import wait_for

from .conftest import Stack
from .table import hidden_cards_shown, new_match, play_to_the_end, register, stream_version

# Round 1 with dealer B: A holds 7C 8C KC, B holds JH QH AH (A wins every trick).
DECKS = [list(deck_for("JH QH AH", "7C 8C KC"))]


@dataclass
class Message:
    event: str = "message"
    id: str | None = None
    data: dict | None = None
    comments: list[str] = field(default_factory=list)


class EventStream:
    """One open ``text/event-stream`` response, read message by message (chunked, unbuffered)."""

    def __init__(self, response: http.client.HTTPResponse) -> None:
        self.response = response

    def next(self) -> Message | None:
        """The next message or comment block; None once the server has ended the stream."""
        message, lines = Message(), 0
        while True:
            raw = self.response.readline()
            if not raw:
                return None
            line = raw.decode().rstrip("\n")
            if not line:
                if lines:
                    return message
                continue
            lines += 1
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if not name:
                message.comments.append(value)
            elif name == "data":
                message.data = orjson.loads(value)
            elif name in ("event", "id"):
                setattr(message, name, value)

    def views(self) -> Iterator[Message]:
        """Every view until the end of the stream (keep-alive comments skipped)."""
        while (message := self.next()) is not None:
            if message.event == "view":
                yield message


@contextmanager
def opened(stack: Stack, path: str, headers: dict[str, str] | None = None, timeout: float = 30) -> Iterator:
    connection = http.client.HTTPConnection(stack.http.host, stack.http.port, timeout=timeout)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        yield response, EventStream(response)
    finally:
        connection.close()


def stream_path(match_id: str, ticket: str | None = None) -> str:
    return f"/matches/{match_id}/stream" + (f"?ticket={ticket}" if ticket else "")


def ticket_for(stack: Stack, token: str) -> str:
    """A stream ticket for ``token``'s player: what a browser sends in a stream's URL."""
    issued = stack.http.post("/stream-tickets", token=token)
    assert issued.status == 201, issued.body
    return issued.body["ticket"]


def subscribers(stack: Stack) -> set[str]:
    """Ids of the API processes' subscriber connections (one each, named so CLIENT LIST shows them)."""
    return {client["id"] for client in stack.redis.client_list() if client.get("name") == SUBSCRIBER}


def test_a_seat_sees_the_other_seats_move_arrive_at_once(stack):
    match_id, a, b = new_match(stack, first_dealer="A")  # B leads
    with opened(stack, stream_path(match_id), {"Authorization": f"Bearer {a.token}"}) as (response, a_stream), \
            opened(stack, stream_path(match_id, ticket_for(stack, b.token))) as (_, b_stream):
        assert response.status == 200 and response.getheader("Content-Type").startswith("text/event-stream")
        first = a_stream.next()
        assert first.event == "view" and first.id == str(stream_version(stack, match_id))
        assert first.data["you"] == "A" and len(first.data["round"]["hand"]) == 3
        b_hand = b_stream.next().data["round"]["hand"]
        assert not set(b_hand) & set(first.data["round"]["hand"])

        started = time.monotonic()
        played = stack.http.post(f"/matches/{match_id}/actions", {"type": "play", "card": b_hand[0]}, token=b.token)
        update = a_stream.next()

        assert time.monotonic() - started < 3, "the new view took too long"
        assert played.status == 200 and update.event == "view" and not update.comments
        assert update.id == str(played.body["version"]) == str(update.data["version"])
        assert update.data["round"]["tricks"][0]["cards"] == {"A": None, "B": b_hand[0]}
        assert {"type": "play", "card": first.data["round"]["hand"][0]} in update.data["legal_actions"]


def test_streams_follow_a_whole_match_to_its_end_and_never_show_unplayed_cards(stack):
    match_id, a, b = new_match(stack)
    seen: dict[str, list[Message]] = {"spectator": [], "A": []}
    ended: dict[str, bool] = {}

    def follow(audience: str, path: str, stream_ready: threading.Event) -> None:
        with opened(stack, path) as (_, events):
            stream_ready.set()
            seen[audience].extend(events.views())
            ended[audience] = True

    readers = []
    seated = stream_path(match_id, ticket_for(stack, a.token))
    for audience, path in (("spectator", stream_path(match_id)), ("A", seated)):
        ready = threading.Event()
        readers.append(threading.Thread(target=follow, args=(audience, path, ready), daemon=True))
        readers[-1].start()
        assert ready.wait(10)
    assert 1 <= len(wait_for(lambda: subscribers(stack), bool)) <= 2  # no connection per stream: one per process

    final = play_to_the_end(stack, match_id, {"A": a, "B": b}, random.Random(5))
    for reader in readers:
        reader.join(10)

    assert ended == {"spectator": True, "A": True}, "a stream did not end with the match"
    for messages in seen.values():
        versions = [m.data["version"] for m in messages]
        assert versions == sorted(set(versions)) and versions[-1] == final["version"]
        assert messages[-1].data["status"] == "finished" and messages[-1].data["round"] is None
    for message in seen["spectator"] + seen["A"]:
        hands = replayed_hands(stack, match_id, message.data["version"])
        hidden = hands["A"] + hands["B"] if message in seen["spectator"] else hands["B"]
        assert not hidden_cards_shown(message.data, set(hidden)), (message.data, hands)
        assert message.data["you"] == (None if message in seen["spectator"] else "A")


def replayed_hands(stack: Stack, match_id: str, version: int) -> dict[str, list[str]]:
    """Both hands at ``version`` (the replay of a finished match shows them)."""
    replayed = stack.http.get(f"/matches/{match_id}/replay?version={version}").body
    return replayed["round"]["hands"] if replayed["round"] else {"A": [], "B": []}


def test_a_finished_match_streams_its_final_view_and_ends(stack):
    match_id, a, b = new_match(stack, decks=DECKS, first_dealer="B")
    for player, action in ((a, "remainder"), (b, "accept"), (a, "7C"), (b, "JH"), (a, "8C"), (b, "QH")):
        body = {"type": "play", "card": action} if action[0].isdigit() or action[0] in "JQKA" else {"type": action}
        assert stack.http.post(f"/matches/{match_id}/actions", body, token=player.token).status == 200
    version = stream_version(stack, match_id)

    with opened(stack, stream_path(match_id, ticket_for(stack, b.token))) as (_, events):
        views = list(events.views())
    assert [(m.data["status"], m.data["winner"], int(m.id)) for m in views] == [("finished", "A", version)]

    with opened(stack, stream_path(match_id), {"Last-Event-ID": str(version)}) as (response, _):
        assert response.status == 204  # seen to the end: browsers stop reconnecting


def test_a_reconnect_gets_the_current_view_at_once(stack):
    match_id, a, b = new_match(stack, decks=DECKS, first_dealer="B")
    assert stack.http.post(f"/matches/{match_id}/actions", {"type": "raise"}, token=a.token).status == 200
    version = stream_version(stack, match_id)

    started = time.monotonic()
    with opened(stack, stream_path(match_id, ticket_for(stack, b.token)), {"Last-Event-ID": "3"}) as (_, events):
        resumed = events.next()
    assert time.monotonic() - started < 2
    assert int(resumed.id) == version and resumed.data["round"]["pending"]["type"] == "raise"
    assert {"type": "accept"} in resumed.data["legal_actions"]


def test_bad_ids_are_404_and_bad_tokens_401(stack):
    match_id, a, _ = new_match(stack)
    stranger = register(stack, "stranger")
    for path in ("/matches/nope/stream", "/matches/%7Bbad%7D/stream"):
        reply = stack.http.get(path)
        assert reply.status == 404 and reply.body["error"] == "NOT_FOUND"
    forged = (stack.http.get(stream_path(match_id), token="forged"), stack.http.get(stream_path(match_id, "forged")),
              stack.http.get(f"{stream_path(match_id)}?token={a.token}"))  # a real token, but in the URL
    for reply in forged:
        assert reply.status == 401 and reply.body["error"] == "UNAUTHENTICATED" and reply.body["message"]
    bad_resume = stack.http.get(stream_path(match_id), headers={"Last-Event-ID": "soon"})
    assert bad_resume.status == 400 and bad_resume.body["error"] == "INVALID_REQUEST"
    with opened(stack, stream_path(match_id, ticket_for(stack, stranger.token))) as (_, events):
        assert events.next().data["you"] is None  # seated nowhere: the spectator's view


def test_a_quiet_stream_sends_keep_alives_and_stops_watching_its_match_when_dropped(stack):
    match_id, _, _ = new_match(stack)
    store = RedisEventStore(stack.redis)
    feeds = live_feeds(Subscriber(stack.redis, SUBSCRIBER), PlayerFeeds(stack.redis),
                       lambda wanted: fold(FoldedMatch(wanted), store.read(wanted)))
    match = fold(FoldedMatch(match_id), store.read(match_id))

    messages = sse.view_messages(match, None, feeds.matches, logger=None, keep_alive=0.2)
    assert next(messages).startswith(b"retry: 2000\nevent: view\nid: 3\n")
    started = time.monotonic()
    assert next(messages) == b": keep-alive\n\n" and 0.15 < time.monotonic() - started < 2
    assert feeds.matches.watched == 1

    messages.close()  # what the server does when the client has gone

    assert feeds.matches.watched == 0
