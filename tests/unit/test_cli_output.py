"""`truc play`, `truc audit` and `truc rebuild` print what they did not write as plain text.

Names, match ids, cards and messages come from a server or a stream: printed through rich
as they are, ``[bold]`` would format, ``[/]`` would crash the command, and an ESC or a
bidi override would drive the operator's terminal.
"""
from __future__ import annotations

import io

import pytest
from click.testing import CliRunner
from rich.console import Console

from services.cli import audit_command as audit_cli
from services.cli import board as play_board
from services.cli import rebuild_command as rebuild_cli
from services.cli.backends import Backends
from services.projector.rebuild.full_rebuild import RebuildError, RebuildReport
from shared.audit import AuditReport
from shared.config import Config
from shared.readmodels import ReadModels
from tests.unit.test_replay_cli import HOSTILE_NAMES, isolated, unsafe_outside_names
from tests.unit.test_replay_cli import UNSAFE as CONTROLS

NAMES = {**HOSTILE_NAMES, "[/]": "[/]", "close[/bold]": "close[/bold]"}


def printed(draw) -> str:
    console = Console(file=io.StringIO(), width=400, color_system=None, highlight=False, emoji=False)
    draw(console)
    return console.file.getvalue()


def table_view(name: str) -> dict:
    return {
        "id": name, "you": "A", "status": "playing", "winner": None, "version": 9,
        "players": {"A": {"id": "p-a", "name": "alice"}, "B": {"id": "p-b", "name": name}},
        "scores": {"A": 2, "B": name}, "rules": {"target": 12},
        "round": {"number": 1, "dealer": "B", "value": name, "remainder_round": False, "turn": "A",
                  "tricks": [{"cards": {"A": "KD", "B": name}, "winner": name, "spoiled": False}],
                  "pending": {"type": "raise", "by": "B", "value": name}, "hand": ["9S", name]},
        "legal_actions": [{"type": "play", "card": "9S"}, {"type": "fold"}],
        "clock": {"seat": "A", "deadline": name, "turn_seconds": name}, "ended_by": name,
    }


@pytest.mark.parametrize(("name", "shown"), NAMES.items(), ids=range(len(NAMES)))
def test_play_draws_what_the_server_sent_as_plain_text(name, shown):
    output = printed(lambda console: play_board.render(console, table_view(name), message=name))

    assert f"vs {isolated(shown)}" in output and f"match {shown}" in output
    assert f"them {shown}" in output and f"→ {shown}" in output and f"[2] {shown}" in output
    assert output.count(shown) >= 8  # the id, the name, a score, the value, a card, a winner, a raise, the message
    assert not unsafe_outside_names(output)


@pytest.mark.parametrize(("name", "shown"), NAMES.items(), ids=range(len(NAMES)))
def test_audit_prints_what_a_report_quotes_as_plain_text(name, shown):
    report = AuditReport("m1", 3, notes=[name])
    report.fail(2, "identity", f"player_joined seats {name}")

    output = printed(lambda console: audit_cli._render(console, [report]))

    assert f"v2 identity: player_joined seats {shown}" in output and shown in output.split("seats", 1)[1]
    assert not CONTROLS.search(output)


class _SayingRebuild:
    """A rebuild that says ``message`` and then fails with it, or finishes."""

    def __init__(self, message: str, fail: bool) -> None:
        self.message, self.fail = message, fail

    def __call__(self, *args, say, **kwargs) -> _SayingRebuild:
        self.say = say
        return self

    def run(self) -> RebuildReport:
        self.say(f"Could not clean up: {self.message}")
        if self.fail:
            raise RebuildError(f"rebuild abandoned: {self.message}")
        return RebuildReport(previous=0, generation=1)


@pytest.mark.parametrize("fail", [False, True], ids=["says", "fails"])
@pytest.mark.parametrize(("name", "shown"), NAMES.items(), ids=range(len(NAMES)))
def test_rebuild_prints_its_messages_and_errors_as_plain_text(monkeypatch, fake_redis, name, shown, fail):
    config = Config.from_env({"REDIS_URL": "redis://unused:6379/0"})
    context = Backends(config, fake_redis, None, ReadModels(fake_redis), None)
    monkeypatch.setattr(rebuild_cli, "backends", lambda: context)
    monkeypatch.setattr(rebuild_cli, "connect", lambda url: fake_redis)
    monkeypatch.setattr(rebuild_cli, "Rebuild", _SayingRebuild(name, fail))

    result = CliRunner().invoke(rebuild_cli.rebuild, ["--inline"], env={"COLUMNS": "400"}, catch_exceptions=False)

    assert result.exit_code == (1 if fail else 0), result.output
    assert f"Could not clean up: {shown}" in result.output
    assert not CONTROLS.search(result.output.replace("\n", " "))


def test_the_terminal_client_offers_no_key_for_an_action_it_cannot_name():
    view = {"round": {"hand": ["7H"]}, "legal_actions": [{"type": "play", "card": "7H"}, {"type": "fold"},
                                                         {"type": "resign"}, {"type": "dance"}]}
    assert play_board.key_map(view) == {"1": {"type": "play", "card": "7H"}, "f": {"type": "fold"},
                                      "g": {"type": "resign"}}
