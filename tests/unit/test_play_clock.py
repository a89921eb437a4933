"""`truc play` shows whose clock runs, asks before resigning, offers cancel, and says how a match ended."""
from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest
from rich.console import Console

from services.cli import board, play

NOW = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC).timestamp()


def playing(seat: str = "A", deadline: str = "2026-01-01T12:00:42.000Z", you: str = "A") -> dict:
    return {
        "id": "m1", "you": you, "status": "playing", "winner": None, "version": 9, "ended_by": None,
        "players": {"A": {"id": "p-a", "name": "alice"}, "B": {"id": "p-b", "name": "bob"}},
        "scores": {"A": 3, "B": 5}, "rules": {"target": 12},
        "round": {"number": 2, "dealer": "B", "value": 1, "remainder_round": False, "turn": "A",
                  "tricks": [], "pending": None, "hand": ["9S", "KD", "7H"]},
        "legal_actions": [{"type": "play", "card": "9S"}, {"type": "fold"}, {"type": "resign"}],
        "clock": {"seat": seat, "deadline": deadline, "turn_seconds": 60},
    }


def over(status: str, ended_by: str, winner: str | None = None) -> dict:
    view = playing()
    view.update(status=status, ended_by=ended_by, winner=winner, round=None, clock=None, legal_actions=[])
    return view


def drawn(view: dict, now: float = NOW) -> str:
    console = Console(file=io.StringIO(), width=200, color_system=None, highlight=False)
    board.render(console, view, now=now)
    return console.file.getvalue()


def test_the_table_shows_whose_clock_runs_and_the_seconds_left():
    assert "Your clock: 42 s left (of 60 s a move)" in drawn(playing())
    assert "Their clock: 7 s left" in drawn(playing(seat="B", deadline="2026-01-01T12:00:06.200Z"))
    assert "Your clock: 0 s left" in drawn(playing(), now=NOW + 600)


def test_a_clock_without_a_readable_deadline_still_says_whose_it_is():
    assert "Their clock runs" in drawn(playing(seat="B", deadline="[bold]soon"))


def test_resign_and_cancel_have_keys_when_offered():
    assert board.key_map(playing())["g"] == {"type": "resign"}
    waiting = {**over("waiting", None), "legal_actions": [{"type": "cancel"}]}
    assert board.key_map(waiting) == {"c": {"type": "cancel"}}
    assert "[c] cancel the match" in drawn(waiting) and "[g] resign (give up)" in drawn(playing())


@pytest.mark.parametrize(("view", "line"), [
    (over("finished", "score", "A"), "Match over: you won 3–5: on score."),
    (over("finished", "resigned", "A"), "Match over: you won 3–5: they resigned."),
    (over("finished", "resigned", "B"), "Match over: you lost 3–5: you resigned."),
    (over("finished", "abandoned", "B"), "Match over: you lost 3–5: you ran out of time twice in a row."),
    (over("cancelled", "cancelled"), "Match cancelled by its creator."),
    (over("cancelled", "expired"), "Match expired: nobody joined in time."),
    (over("finished", ["not", "a", "reason"], "A"), "Match over: you won 3–5."),
], ids=["score", "they-resigned", "you-resigned", "abandoned", "cancelled", "expired", "unknown"])
def test_the_table_says_how_the_match_ended(view, line):
    assert line in drawn(view)


class FakeClient:
    def __init__(self) -> None:
        self.sent: list[dict] = []

    def act(self, match_id, action, if_match=None):
        self.sent.append(action)


def session(view: dict) -> tuple[play.Table, FakeClient, io.StringIO]:
    client, out = FakeClient(), io.StringIO()
    return play.Table(client, Console(file=out, width=200, color_system=None), view), client, out


def test_resign_asks_first_and_the_next_key_answers():
    table, client, out = session(playing())

    assert table.press("g") and client.sent == []
    assert "Resign this match?" in out.getvalue() and "[y/n]" in out.getvalue()
    assert table.press("y") and client.sent == [{"type": "resign"}]


@pytest.mark.parametrize("answer", ["n", "q", "1", "f"])
def test_any_other_answer_keeps_playing_and_sends_nothing(answer):
    table, client, out = session(playing())

    table.press("g")
    assert table.press(answer)  # "q" too: it answered the question, it did not quit

    assert client.sent == [] and "Not resigned" in out.getvalue()
    assert table.press("1") and client.sent == [{"type": "play", "card": "9S"}]


def test_a_match_that_ends_while_asking_leaves_nothing_to_confirm():
    table, client, _ = session(playing())
    table.press("g")

    table.show({**over("finished", "score", "B"), "version": 10})
    table.press("y")

    assert client.sent == []


def test_the_player_whose_clock_runs_is_warned_once_when_little_is_left(monkeypatch):
    table, _, out = session(playing(deadline="2026-01-01T12:00:08.000Z"))
    monkeypatch.setattr(board.time, "time", lambda: NOW)

    table.tick()
    table.tick()

    assert out.getvalue().count("8 s left to decide") == 1
    theirs, _, quiet = session(playing(seat="B", deadline="2026-01-01T12:00:08.000Z"))
    theirs.tick()
    assert quiet.getvalue() == ""


def test_what_the_clock_says_is_printed_as_plain_text():
    view = playing()
    view["clock"]["turn_seconds"] = "[red]60\x1b[2J"

    assert "(of [red]60\\x1b[2J s a move)" in drawn(view)


def test_a_raise_asked_of_you_says_your_answer_beside_your_clock_not_their_turn():
    asked = playing(seat="A")  # A owes the answer: B (on turn to play a card) raised
    asked["round"].update(turn="B", pending={"type": "raise", "by": "B", "value": 2})
    asked["legal_actions"] = [{"type": "accept"}, {"type": "reject"}, {"type": "fold"}]
    shown = drawn(asked)
    assert "Your clock: 42 s left" in shown and "(your answer)" in shown and "their turn" not in shown
    waiting = playing(seat="B", you="A")  # A raised: B owes the answer, though A is on turn to play
    waiting["round"].update(pending={"type": "raise", "by": "A", "value": 2})
    shown = drawn(waiting)
    assert "Their clock" in shown and "(their answer)" in shown and "your turn" not in shown
