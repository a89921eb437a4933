"""``truc play``: Le Truc in the terminal, against the bot or a person on another terminal.

Keyboard driven: one key per action ([1]-[3] play the cards of your hand, [r] raise,
[m] my remainder, [a] accept, [x] reject, [d] propose a redeal, [f] fold, [g] resign,
[c] cancel a match nobody has joined yet, [q] quit). Resigning asks first: the next key
answers (y resigns). The table is redrawn whenever the match changes (server-sent events,
no polling), with whose clock runs and the seconds left; a player whose clock runs is told
once when only a few seconds are left. On a terminal the table is redrawn in place (rich
``Live``: the clock counts down where it stands); printed elsewhere, each view follows the last.

Everything the server sends is data, never formatting: names are chosen by players and
an API can be anyone's, so each value goes through :func:`.untrusted.markup_text` before
it is put into a line of rich markup (:mod:`.board` draws the table).
"""
from __future__ import annotations

import contextlib
import os
import queue
import sys
import termios
import threading
import time
import tty
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click
from rich.console import Console, RenderableType
from rich.live import Live

from services.client import ApiError, TrucClient
from shared.botplay.levels import DEFAULT_LEVEL, LEVELS
from shared.config import Config
from shared.i18n import Translator
from shared.private_files import private_dir, read_secret, write_secret

from .board import WARN_SECONDS, frame, key_map, seconds_left
from .lang import ENGLISH, lang_option, terminal
from .untrusted import file_stem, markup_text, name_text, printable

OVER = ("finished", "cancelled")  # a match in either status changes no more


def resign_prompt(tr: Translator) -> str:
    """The question resigning asks first: the next key answers (y resigns)."""
    return "[bold]" + tr.gettext("Resign this match?") + "[/bold] " + tr.gettext("Your opponent wins it at once.") + \
        " \\[y/n]"


def _token_file(config: Config, name: str) -> Path:
    return config.data_dir / "players" / f"{file_stem(name)}.token"


def log_in(client: TrucClient, config: Config, name: str) -> None:
    """Log in as ``name`` with its saved token, or register it and save the token."""
    path = _token_file(config, name)
    saved = read_secret(path)
    if saved:
        client.token = saved
        return
    registered = client.register(name)
    private_dir(path.parent)
    write_secret(path, registered.token)


def _feed(inbox: queue.Queue, client: TrucClient, match_id: str) -> None:
    """Views from the live stream; a dropped stream is reopened until the match is over."""
    finished = False
    while not finished:
        try:
            for view in client.stream(match_id):
                inbox.put(("view", view))
                finished = view["status"] in OVER
        except (OSError, ApiError) as error:
            inbox.put(("error", str(error)))
        if not finished:
            time.sleep(1)
    inbox.put(("ended", None))


@contextlib.contextmanager
def _keyboard():
    """Keys arrive one by one, unechoed, for the whole session.

    Switching once (and without flushing) means a key pressed at any moment is read,
    never echoed and then discarded as a per-key raw mode would do between two reads.
    """
    fd = sys.stdin.fileno()
    if not os.isatty(fd):
        yield fd
        return
    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd, termios.TCSANOW)
    try:
        yield fd
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def _keys(inbox: queue.Queue, fd: int) -> None:
    while chunk := os.read(fd, 32).decode(errors="replace"):
        for key in chunk:
            inbox.put(("key", key))
    inbox.put(("key", "\x04"))  # end of input: as if the player quit


def _join(
    client: TrucClient, console: Console, match_id: str, tr: Translator = ENGLISH, invite: str | None = None,
) -> dict[str, Any]:
    """Take seat B once the player said yes (and yes to a custom match's terms), or come back
    to a match one already sits in. A link never seats anyone by itself. ``invite``: a private match's."""
    seen = client.view(match_id, invite=invite)
    if seen.get("you"):
        return seen
    creator = (seen.get("players") or {}).get("A") or {}
    name = name_text(creator["name"]) if "name" in creator else tr.gettext("Someone")
    console.print(tr.gettext("{name} invites you to a match to {target}.", name=name,
                             target=markup_text(seen.get("rules", {}).get("target", "?"))))
    if not click.confirm(tr.gettext("Join it?"), default=True):
        raise click.Abort()
    try:
        return client.join(match_id, invite=invite)
    except ApiError as error:
        if error.code == "ALREADY_SEATED":
            return client.view(match_id)
        if error.code != "CUSTOM_TERMS":
            raise
        console.print(markup_text(error.message))  # the server's sentence: what the creator chose
        if not click.confirm(tr.gettext("Accept these terms and join?"), default=False):
            raise click.Abort() from None
    return client.join(match_id, accept_custom=True, invite=invite)


@click.command()
@click.option("--name", required=True, help="Your player name (registered on first use; the token is kept "
                                            "under DATA_DIR/players).")
@click.option("--bot", "bot_level", is_flag=False, flag_value=DEFAULT_LEVEL, type=click.Choice(LEVELS),
              help=f"Play against the built-in bot, at a level ({', '.join(LEVELS)}; --bot alone: {DEFAULT_LEVEL}).")
@click.option("--join", "join_id", help="Join a match a friend created (asks first; or come back to one of yours).")
@click.option("--invite", help="The invite of a private match, to join it with --join.")
@click.option("--url", help="The API (default: http://HOST:PORT from the environment).")
@click.option("--turn-seconds", type=click.IntRange(5, 604800),
              help="Seconds each decision may take, for a match you create (default: the server's, 60).")
@click.option("--rules", "variants", multiple=True, metavar="KEY=VALUE", callback=lambda _c, _p, v: _variants(v),
              help="A rule variant of RULES.md §10 for a match you create, e.g. raise_ladder=even (repeatable).")
@lang_option
def play(name: str, bot_level: str | None, join_id: str | None, invite: str | None, url: str | None,
         turn_seconds: int | None, variants: dict[str, Any], lang: str) -> None:
    """Play Le Truc in the terminal: create a match (for the bot or a friend) or join one."""
    config = Config.from_env()
    client = TrucClient(url or f"http://{config.host}:{config.port}", accept_language=lang)
    console, tr = Console(highlight=False), terminal(lang)
    try:
        log_in(client, config, name)
        options = _match_options(bot_level, turn_seconds, variants)
        view = _join(client, console, join_id, tr, invite) if join_id else client.create_match(**options)
    except ApiError as error:
        raise click.ClickException(printable(error.message)) from None
    with _keyboard() as keyboard, contextlib.suppress(KeyboardInterrupt):
        _session(client, console, view, keyboard, tr)


def _variants(pairs: tuple[str, ...]) -> dict[str, Any]:
    """``--rules key=value`` pairs as the API's ``rules`` object: numbers and true/false as JSON says them
    (the server checks the keys and values and says in the player's language what is wrong)."""
    found: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{pair!r}: write KEY=VALUE, e.g. raise_ladder=even", param_hint="--rules")
        text = value.strip()
        found[key.strip()] = {"true": True, "false": False}.get(text.lower(), int(text) if text.isdigit() else text)
    return found


def _match_options(bot_level: str | None, turn_seconds: int | None, variants: dict[str, Any]) -> dict[str, Any]:
    """The body of POST /matches for a new match (``bot_level``: against the bot, at that level)."""
    rules = {**variants, **({"turn_seconds": turn_seconds} if turn_seconds is not None else {})}
    bot = {"opponent": "bot", "bot_level": bot_level} if bot_level else {}
    return {**bot, **({"rules": rules} if rules else {})}


def _session(client: TrucClient, console: Console, view: dict[str, Any], keyboard: int, tr: Translator) -> None:
    inbox: queue.Queue = queue.Queue()
    threading.Thread(target=_feed, args=(inbox, client, view["id"]), daemon=True).start()
    threading.Thread(target=_keys, args=(inbox, keyboard), daemon=True).start()
    threading.Thread(target=_ticks, args=(inbox,), daemon=True).start()
    table = Table(client, console, view, tr)
    with drawn_in_place(table):
        _play_on(table, inbox)


def _play_on(table: Table, inbox: queue.Queue) -> None:
    table.redraw()
    while True:
        kind, value = inbox.get()
        if kind == "view":
            table.show(value)
        elif kind == "key" and not table.press(value):
            return
        elif kind == "tick":
            table.tick()
        elif kind in ("ended", "error") and table.view["status"] in OVER:
            return


def _ticks(inbox: queue.Queue) -> None:
    while True:
        time.sleep(1)
        inbox.put(("tick", None))


@contextlib.contextmanager
def drawn_in_place(table: Table) -> Iterator[None]:
    """While the block runs, ``table`` is redrawn in place on a terminal (rich ``Live``, refreshed
    only when the table changes or the clock ticks); elsewhere each frame is printed after the last."""
    if not table.console.is_terminal:
        yield
        return
    with Live(console=table.console, auto_refresh=False, transient=False) as live:
        table.draw, table.in_place = (lambda drawn: live.update(drawn, refresh=True)), True
        try:
            yield
        finally:
            table.draw, table.in_place = table.console.print, False


class Table:
    """One player's session at a match: the view shown, and what their keys do to it."""

    def __init__(self, client: TrucClient, console: Console, view: dict[str, Any], tr: Translator = ENGLISH) -> None:
        self.client, self.console, self.view, self.tr = client, console, view, tr
        self.confirming: dict[str, Any] | None = None  # the resignation asked about: the next key answers
        self.warned = -1  # the version whose clock warning was given
        self.paused_until = 0.0  # a limit said to wait (Retry-After): keys send nothing until then
        self.message = ""  # the server's refusal of the last key, shown until the next view
        self.draw: Callable[[RenderableType], None] = console.print  # drawn_in_place redraws instead
        self.in_place = False  # whether a redraw replaces the last frame (so the clock may tick in it)

    def redraw(self) -> None:
        self.draw(frame(self.view, self.message, tr=self.tr))

    def show(self, view: dict[str, Any]) -> None:
        """A view from the stream; drawn unless it is the one already drawn."""
        if view["version"] != self.view["version"]:
            self.view, self.message = view, ""
            self.redraw()
            if self.confirming is not None and self.confirming not in view.get("legal_actions", []):
                self.confirming = None  # the match ended meanwhile: nothing left to confirm
            elif self.confirming is not None and not self.in_place:  # in place, the question stays above
                self.console.print(resign_prompt(self.tr))  # still asked: the next key answers
        self.view = view

    def press(self, key: str) -> bool:
        """Handle one key; False when the player quits."""
        if key in ("\x03", "\x04"):
            return False
        if self.confirming is not None:
            action, self.confirming = self.confirming, None
            if key in ("y", "Y"):
                self.send(action)
            else:
                self.console.print(self.tr.gettext("Not resigned: play on."))
            return True
        if key == "q":
            return False
        action = key_map(self.view).get(key)
        if action is not None and action["type"] == "resign":
            self.confirming = action
            self.console.print(resign_prompt(self.tr))
        elif action is not None:
            self.send(action)
        return True

    def send(self, action: dict[str, Any]) -> None:
        wait = self.paused_until - time.monotonic()
        if wait > 0:
            self.console.print(self.tr.ngettext("Too fast: wait {count} s, as the server asked.",
                                                "Too fast: wait {count} s, as the server asked.", round(wait)))
            return
        try:
            self.client.act(self.view["id"], action, if_match=self.view["version"])
        except ApiError as error:
            if error.retry_after:  # a limit (429) says how long to wait: the sentence says why
                self.paused_until = time.monotonic() + error.retry_after
            self.message = error.message
            self.redraw()

    def tick(self) -> None:
        """Once a second: the clock counts down in place, and the player is warned, once per move,
        that their clock is nearly out."""
        if self.in_place and self.view.get("clock"):
            self.redraw()
        clock = self.view.get("clock") or {}
        left = seconds_left(self.view)
        if clock.get("seat") == self.view["you"] and left is not None and left <= WARN_SECONDS:
            if self.warned != self.view["version"]:
                self.warned = self.view["version"]
                decide = self.tr.ngettext("{count} s left to decide", "{count} s left to decide", left)
                self.console.print(f"[bold red]{decide}[/bold red]")
