"""`truc play` shows a limit as the server's sentence and waits as told before sending again."""
from __future__ import annotations

from rich.console import Console

from services.cli.play import Table
from services.client import ApiError


class LimitedClient:
    def __init__(self) -> None:
        self.sent = 0

    def act(self, match_id, action, if_match=None):
        self.sent += 1
        raise ApiError(429, "RATE_LIMITED", "You are acting too fast; try again in 5 seconds.", retry_after=5,
                       limit="actions")


def test_a_limited_action_is_shown_and_nothing_is_sent_until_the_wait_is_over() -> None:
    console = Console(record=True, width=200)
    view = {"id": "m1", "version": 3, "you": "A", "players": {"A": {"name": "a"}, "B": {"name": "b"}},
            "scores": {"A": 0, "B": 0}, "rules": {"target": 12}, "status": "playing", "round": None,
            "legal_actions": []}
    client = LimitedClient()
    table = Table(client, console, view)
    table.send({"type": "fold"})
    table.send({"type": "fold"})
    text = console.export_text()
    assert client.sent == 1 and "acting too fast" in text and "wait 5 s" in text
