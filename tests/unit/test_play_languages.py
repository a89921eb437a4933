"""`truc play --lang` and `truc replay --lang` speak the terminal's language (API.md "Languages")."""
from __future__ import annotations

from click.testing import CliRunner

from services.cli import board
from services.cli import play as play_cli
from services.cli.lang import terminal
from services.client import TrucClient
from tests.unit.test_play_clock import drawn, over, playing
from tests.unit.test_replay_cli import Table, replay_of  # noqa: F401 - the fixture


def test_the_table_speaks_finnish_with_the_seeds_words() -> None:
    import io

    from rich.console import Console
    console = Console(file=io.StringIO(), width=200, color_system=None, highlight=False)
    view = playing()
    view["legal_actions"].append({"type": "raise"})
    board.render(console, view, tr=terminal("fi"))
    text = console.file.getvalue()
    assert "Kierros 2 · jakaja B" in text and "nosta (2 lisää?)" in text and "Kätesi:" in text
    assert "Round" not in text and "9♠" in text and "alice" in text


def test_the_table_speaks_urdu_and_says_how_the_match_ended() -> None:
    import io

    from rich.console import Console
    console = Console(file=io.StringIO(), width=200, color_system=None, highlight=False)
    board.render(console, over("finished", "resigned", "A"), tr=terminal("ur"))
    assert "میچ ختم: آپ 3–5 سے جیت گئے: مخالف نے ہار مان لی۔" in console.file.getvalue()
    assert "Match over" in drawn(over("finished", "resigned", "A"))  # English stays the default


def test_play_takes_lang_and_defaults_to_the_environment(monkeypatch) -> None:
    seen: dict = {}

    def fake_client(url, accept_language=None):
        seen["lang"] = accept_language
        raise SystemExit(0)
    monkeypatch.setattr(play_cli, "TrucClient", fake_client)
    CliRunner().invoke(play_cli.play, ["--name", "x", "--lang", "ur"])
    assert seen["lang"] == "ur"
    CliRunner().invoke(play_cli.play, ["--name", "x"], env={"LANG": "nl_NL.UTF-8"})
    assert seen["lang"] == "nl"
    CliRunner().invoke(play_cli.play, ["--name", "x"], env={"LANG": "C"})
    assert seen["lang"] == "en"


def test_the_client_asks_for_its_language_only_when_given_one() -> None:
    assert TrucClient(accept_language="pa")._headers()["Accept-Language"] == "pa"
    assert "Accept-Language" not in TrucClient()._headers()


def test_replay_speaks_dutch_from_lang(replay_of, monkeypatch) -> None:  # noqa: F811
    monkeypatch.setenv("LANG", "nl_NL.UTF-8")
    output = replay_of(Table().play("A KD", "B QH", "A fold").store())
    assert "Ronde 1 · dealer B" in output and "slag 1: A KD, B QH → A" in output and "A past" in output
    assert "Round 1" not in output
    fi = replay_of(Table().play("A KD", "B QH", "A fold").store(), "--lang", "fi")
    assert "Kierros 1 · jakaja B" in fi and "tikki 1" in fi and "A luovuttaa" in fi


def test_an_unknown_language_is_a_usage_error() -> None:
    result = CliRunner().invoke(play_cli.play, ["--name", "x", "--lang", "de"])
    assert result.exit_code == 2
