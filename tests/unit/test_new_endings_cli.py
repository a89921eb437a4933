"""The terminal client tells a seated player of R33's round cap and of an aborted match in their
language, and `truc replay` says both in the match's last line."""
from __future__ import annotations

import pytest

from services.cli import board
from services.cli.lang import terminal
from services.cli.replay_lines import Moment, line
from shared.i18n import TRANSLATED
from shared.rules import Ending, MatchState, Rules, Seat, Status, WinReason, replay
from shared.rules import events as ev
from shared.rules.state import RoundEnd, RoundSummary, copy_with

CREATED = ev.MatchCreated("m", "p1", Rules(), Seat.B, (0, 0), (), False)
PLAYING = replay([CREATED, ev.PlayerJoined(Seat.B, "p2")])


def _view(ended_by: str, winner: str = "A") -> dict:
    return {"status": "finished", "winner": winner, "you": "A", "ended_by": ended_by}


@pytest.mark.parametrize("ended_by", [Ending.ROUND_CAP, Ending.ABORTED])
@pytest.mark.parametrize("winner", ["A", "B"])
def test_each_new_ending_has_its_own_sentence_for_the_winner_and_the_loser(ended_by: Ending, winner: str) -> None:
    said = board.ending(_view(ended_by.value, winner), "3", "2")
    fallback = board.ending(_view("no such ending", winner), "3", "2")
    assert said != fallback and "3–2" in said
    assert ("limit" if ended_by is Ending.ROUND_CAP else "does not count") in said


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_new_endings_are_said_in_every_language(lang: str) -> None:
    tr = terminal(lang)
    for ended_by in ("round_cap", "aborted"):
        said = board.ending(_view(ended_by), "3", "2", tr)
        assert said != board.ending(_view(ended_by), "3", "2") and "3–2" in said


def _won(reason: WinReason, before: MatchState) -> Moment:
    event = ev.MatchWon(Seat.A, (1, 0), None, reason)
    return Moment(9, event, before, replay([event], before))


def test_replay_says_a_match_ended_at_the_round_limit() -> None:
    text = line(_won(WinReason.ROUND_CAP, PLAYING), reveal=True)
    assert "Match won by A" in text and "round limit" in text and "does not count" not in text


def test_replay_says_a_resignation_in_round_1_aborted_the_match_and_a_later_one_did_not() -> None:
    assert "does not count" in line(_won(WinReason.RESIGNED, PLAYING), reveal=True)
    summary = RoundSummary(1, Seat.B, 1, Seat.A, 1, RoundEnd.FOLD, ())
    later = copy_with(PLAYING, last_round=summary)
    assert later.status is Status.PLAYING
    assert "does not count" not in line(_won(WinReason.RESIGNED, later), reveal=True)
