"""`truc play` on a terminal redraws its table in place (the clock ticking where it stands), and
leaves the bidi isolates out of names on terminals that draw them as boxes."""
from __future__ import annotations

import io

import pytest
from rich.console import Console

from services.cli import bidi, play, untrusted
from services.cli.board import frame

from .test_play_clock import NOW, FakeClient, playing

CURSOR_UP = "\x1b[1A"  # how a live display goes back over its last frame


def _table(terminal: bool) -> tuple[play.Table, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, width=120, color_system=None, force_terminal=terminal, highlight=False)
    return play.Table(FakeClient(), console, playing()), out


def test_on_a_terminal_each_view_and_tick_redraws_the_table_over_the_last(monkeypatch):
    monkeypatch.setattr(play.time, "monotonic", lambda: 0.0)
    monkeypatch.setattr("services.cli.board.time.time", lambda: NOW)
    table, out = _table(terminal=True)
    with play.drawn_in_place(table):
        table.redraw()
        table.show({**playing(), "version": 10})
        table.tick()
    shown = out.getvalue()  # three frames, and the last drawn again as the display stops
    assert shown.count("Le Truc · match") == 4
    assert shown.count(CURSOR_UP) == 3 * 5  # back up over each frame of 6 lines
    assert table.draw == table.console.print and not table.in_place  # printed again once the session ends


def test_printed_elsewhere_each_view_follows_the_last_and_ticks_print_nothing():
    table, out = _table(terminal=False)
    with play.drawn_in_place(table):
        table.redraw()
        table.tick()
        table.show({**playing(), "version": 10})
    assert out.getvalue().count("Le Truc · match") == 2 and "\x1b[" not in out.getvalue()


@pytest.mark.parametrize(("env", "is_terminal", "draws"), [
    ({}, True, False),  # an unknown terminal: boxes, most likely
    ({}, False, True),  # a file or a pipe keeps the text whole
    ({"VTE_VERSION": "7200"}, True, True), ({"VTE_VERSION": "5200"}, True, False),
    ({"KONSOLE_VERSION": "230804"}, True, True), ({"MLTERM": "3.9"}, True, True),
    ({"TRUC_ISOLATES": "1"}, True, True), ({"TRUC_ISOLATES": "0", "VTE_VERSION": "7200"}, True, False),
])
def test_isolates_are_written_where_the_output_draws_them(env, is_terminal, draws):
    assert bidi.draws_isolates(env, is_terminal) is draws


def test_names_go_without_isolates_on_a_terminal_that_cannot_draw_them():
    view = {**playing(), "players": {"A": {"id": "p-a", "name": "علی"}, "B": {"id": "p-b", "name": "bob\u2069"}}}
    untrusted.isolate_names(False)
    try:
        out = io.StringIO()
        Console(file=out, width=200, color_system=None).print(frame(view))
    finally:
        untrusted.isolate_names(True)
    shown = out.getvalue()
    assert "(علی) vs bob\\u2069" in shown  # the name's own bidi character still shows as its escape
    assert "\u2068" not in shown and "\u2069" not in shown
    assert untrusted.name_text("bob") == "[none]\u2068bob\u2069[/none]"  # and back on
