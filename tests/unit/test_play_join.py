"""`truc play --join` asks before taking a seat, and shows a custom match's terms before accepting them."""
from __future__ import annotations

import click
import pytest
from rich.console import Console

from services.cli import play
from services.client import ApiError

TERMS = "The creator of this match chose the starting scores 3-0, so they may know your cards."


class FakeClient:
    def __init__(self, custom: bool, you: str | None = None) -> None:
        self.custom, self.you, self.joins = custom, you, []

    def view(self, match_id, invite=None):
        return {"id": match_id, "you": self.you, "players": {"A": {"name": "[bold]mallory[/bold]"}},
                "rules": {"target": 12}}

    def join(self, match_id, accept_custom=False, invite=None):
        self.joins.append(accept_custom)
        if self.custom and not accept_custom:
            raise ApiError(409, "CUSTOM_TERMS", TERMS)
        return {"id": match_id, "you": "B"}


def _answers(monkeypatch, *answers: bool) -> list[str]:
    asked, queue = [], list(answers)
    monkeypatch.setattr(click, "confirm", lambda text, default=None: asked.append(text) or queue.pop(0))
    return asked


def _console() -> Console:
    return Console(record=True, width=200, highlight=False)


def test_an_ordinary_invitation_is_joined_only_after_a_yes(monkeypatch) -> None:
    client, console = FakeClient(custom=False), _console()
    _answers(monkeypatch, True)
    assert play._join(client, console, "m1")["you"] == "B" and client.joins == [False]
    assert "\u2068[bold]mallory[/bold]\u2069 invites you to a match to 12" in console.export_text()


def test_declining_an_invitation_joins_nothing(monkeypatch) -> None:
    client = FakeClient(custom=False)
    _answers(monkeypatch, False)
    with pytest.raises(click.Abort):
        play._join(client, _console(), "m1")
    assert client.joins == []


def test_a_custom_match_shows_its_terms_and_is_joined_only_once_they_are_accepted(monkeypatch) -> None:
    client, console = FakeClient(custom=True), _console()
    asked = _answers(monkeypatch, True, True)
    assert play._join(client, console, "m1")["you"] == "B"
    assert client.joins == [False, True] and TERMS in console.export_text() and len(asked) == 2


def test_refusing_a_custom_matchs_terms_joins_nothing(monkeypatch) -> None:
    client = FakeClient(custom=True)
    _answers(monkeypatch, True, False)
    with pytest.raises(click.Abort):
        play._join(client, _console(), "m1")
    assert client.joins == [False]


def test_coming_back_to_ones_own_seat_asks_nothing(monkeypatch) -> None:
    client = FakeClient(custom=True, you="B")
    assert _answers(monkeypatch) == [] and play._join(client, _console(), "m1")["you"] == "B"
    assert client.joins == []
