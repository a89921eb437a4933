"""`truc play --join ID --invite CODE` reads a private match's terms and joins it with its invite."""
from __future__ import annotations

import click
from rich.console import Console

from services.cli import play


class InvitedClient:
    """Answers as the API does a private match: only with its invite."""

    def __init__(self, invite: str) -> None:
        self.invite, self.joined = invite, False

    def view(self, match_id, invite=None):
        assert invite == self.invite, "a private match reads 404 without its invite"
        return {"id": match_id, "you": None, "players": {"A": {"name": "alice"}}, "rules": {"target": 12}}

    def join(self, match_id, accept_custom=False, invite=None):
        assert invite == self.invite, "a private match is joined only with its invite"
        self.joined = True
        return {"id": match_id, "you": "B"}


def test_the_invite_is_sent_with_the_read_and_the_join(monkeypatch) -> None:
    monkeypatch.setattr(click, "confirm", lambda text, default=None: True)
    client = InvitedClient("CODE-0123456789abcdefg")
    console = Console(record=True, width=200, highlight=False)
    assert play._join(client, console, "m1", invite="CODE-0123456789abcdefg") == {"id": "m1", "you": "B"}
    assert client.joined and "alice\u2069 invites you" in console.export_text()
