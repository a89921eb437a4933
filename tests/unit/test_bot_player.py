"""The bot plays where its player stream says it is awaited, and resumes the stream where it left off."""
from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Executor, Future, ThreadPoolExecutor

import pytest

from services.bots.player import BotPlayer
from services.client import ApiError, ServerEvent
from shared.botplay.memory import Record


class FakeClient:
    """The API as the bot sees it: views by version, recorded actions, scripted stream connections."""

    def __init__(self, views: dict[str, dict], connections: list[list[ServerEvent] | Exception]) -> None:
        self.views, self.connections = views, connections
        self.acted: list[tuple[str, dict, int]] = []
        self.resumed_from: list[str | None] = []

    def player_stream(self, player_id: str, last_event_id: str | None = None) -> Iterator[ServerEvent]:
        self.resumed_from.append(last_event_id)
        connection = self.connections.pop(0)
        if isinstance(connection, Exception):
            raise connection
        yield from connection
        raise ConnectionResetError("the stream dropped")

    def view(self, match_id: str, min_version: int = 0, wait: float = 0) -> dict:
        return self.views[match_id]

    def act(self, match_id: str, action: dict, if_match: int | None = None) -> dict:
        self.acted.append((match_id, action, if_match))
        return {"version": if_match + 1, "events": []}


def first_legal(view: dict) -> dict | None:
    return view["legal_actions"][0] if view["on_turn"] else None


def turn(match_id: str, version: int, entry_id: str | None) -> ServerEvent:
    return ServerEvent("turn", entry_id, {"match_id": match_id, "version": version, "deadline": None})


PLAY = {"type": "play", "card": "7C"}


def test_the_bot_acts_on_a_turn_once_however_often_it_is_told() -> None:
    client = FakeClient({"m1": {"version": 3, "on_turn": True, "legal_actions": [PLAY]}}, [])
    bot = BotPlayer(client, first_legal, "bot")
    assert bot.on_event(turn("m1", 3, None)) is True
    assert bot.on_event(turn("m1", 3, "5-0")) is False  # told again: the bot already acted there
    assert client.acted == [("m1", PLAY, 3)] and bot.position == "5-0"


def test_a_stale_turn_is_left_alone() -> None:
    client = FakeClient({"m1": {"version": 4, "on_turn": False, "legal_actions": [PLAY]}}, [])
    assert BotPlayer(client, first_legal, "bot").on_event(turn("m1", 3, "5-0")) is False
    assert client.acted == []


def test_after_a_drop_the_bot_reads_on_from_the_last_position_it_handled(monkeypatch: pytest.MonkeyPatch) -> None:
    views = {"m1": {"version": 3, "on_turn": True, "legal_actions": [PLAY]},
             "m2": {"version": 7, "on_turn": True, "legal_actions": [PLAY]}}
    client = FakeClient(views, [
        [turn("m1", 3, None), ServerEvent("message", "5-0", None)],  # the scan, then its position
        ApiError(503, "STREAMS_BUSY", "busy"),
        [turn("m2", 7, "6-0"), ServerEvent("match", "7-0", {"match_id": "m1", "status": "finished", "version": 9})],
    ])
    naps: list[float] = []
    monkeypatch.setattr("services.bots.player.time.sleep", naps.append)
    bot = BotPlayer(client, first_legal, "bot")
    with pytest.raises(IndexError):  # no fourth connection scripted: the test ends there
        bot.run_forever(retry_seconds=0.5)
    assert client.resumed_from == [None, "5-0", "5-0", "7-0"]
    assert [match_id for match_id, _, _ in client.acted] == ["m1", "m2"]
    assert naps == [0.5, 0.5, 0.5]


class DecidingPool(Executor):
    """The decision pool as the bot uses it: each submission answered at once with the next scripted move."""

    def __init__(self, moves: list[dict]) -> None:
        self.moves, self.records = moves, []

    def submit(self, fn, /, *args, **kwargs) -> Future:
        view, record = args
        self.records.append(record)
        decided: Future = Future()
        decided.set_result(self.moves.pop(0))
        return decided


def test_each_decision_is_handed_what_the_bot_learnt_of_that_opponent_so_far() -> None:
    def seen(version: int, number: int, last: dict | None = None) -> dict:
        return {"version": version, "you": "A", "round": {"number": number}, "last_round": last}

    client = FakeClient({}, [])
    pool = DecidingPool([{"type": "raise"}, {"type": "raise"}, PLAY, PLAY])
    bot = BotPlayer(client, None, "bot", pool=pool)
    rejected = {"number": 1, "reason": "raise_rejected", "winner": "A"}
    # m1: a raise refused, then one accepted (the bot decides again in its round); m2 apart
    for match_id, shown in [("m1", seen(1, 1)), ("m1", seen(3, 2, rejected)), ("m2", seen(5, 1)), ("m1", seen(7, 2))]:
        client.views[match_id] = shown
        bot.on_event(turn(match_id, shown["version"], None))
        bot._senders.shutdown(wait=True)  # the move is sent before the next notice comes
        bot._senders = ThreadPoolExecutor(1)
    assert pool.records == [Record(), Record(asked=1, folded=1), Record(), Record(asked=2, folded=1)]
    assert [action for _, action, _ in client.acted] == [{"type": "raise"}, {"type": "raise"}, PLAY, PLAY]
