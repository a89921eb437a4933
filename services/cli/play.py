"""``truc play``: Le Truc in the terminal, against the bot or a person on another terminal.

Keyboard driven: one key per action ([1]-[3] play the cards of your hand, [r] raise,
[m] my remainder, [a] accept, [x] reject, [d] propose a redeal, [f] fold, [q] quit).
The table is redrawn whenever the match changes (server-sent events, no polling).

Everything the server sends is data, never formatting: names are chosen by players and
an API can be anyone's, so each value goes through :func:`.untrusted.markup_text` before
it is put into a line of rich markup.
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
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from services.client import ApiError, TrucClient
from shared.config import Config
from shared.private_files import private_dir, read_secret, write_secret

from .untrusted import markup_text, printable

SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
KEYS = {"raise": "r", "remainder": "m", "accept": "a", "reject": "x", "propose_redeal": "d", "fold": "f"}
WORDS = {"raise": "raise (2 more?)", "remainder": "my remainder", "accept": "accept", "reject": "reject",
         "propose_redeal": "propose a redeal", "fold": "fold"}


def pretty(card: object) -> str:
    """A card as rich markup (its suit as a symbol); anything else the server sent, as plain text."""
    if card is None:
        return "··"
    if not isinstance(card, str) or len(card) < 2 or card[-1] not in SUITS:
        return markup_text(card)
    colour = "red" if card[-1] in "HD" else "bold"
    return f"[{colour}]{markup_text(card[:-1])}{SUITS[card[-1]]}[/{colour}]"


def key_map(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The keys the player may press now, each with the action body it sends."""
    hand = (view.get("round") or {}).get("hand", [])
    keys: dict[str, dict[str, Any]] = {}
    for action in view.get("legal_actions", []):
        if action["type"] == "play":
            keys[str(hand.index(action["card"]) + 1)] = action
        elif action["type"] in KEYS:  # an action this client has no key for is not offered
            keys[KEYS[action["type"]]] = action
    return keys


def render(console: Console, view: dict[str, Any], message: str = "") -> None:
    """Draw the table: the players and scores, the round, your hand, and the keys you may press."""
    me = view["you"]
    other = "B" if me == "A" else "A"
    players = view["players"]
    names = {seat: markup_text(players[seat]["name"]) if players.get(seat) else "(waiting)" for seat in ("A", "B")}
    match = markup_text(view["id"])
    console.rule(f"Le Truc · match {match} · you are {markup_text(me)} ({names[me]}) vs {names[other]}")
    mine, theirs, target = (markup_text(value) for value in (view["scores"][me], view["scores"][other],
                                                             view["rules"]["target"]))
    console.print(f"Score  you {mine} · {theirs} them   (first to {target})")
    if view["status"] == "waiting":
        console.print(f"Waiting for an opponent: they join with  truc play --name NAME --join {match}")
    elif view["status"] == "finished":
        result = "you won" if view["winner"] == me else "you lost"
        console.print(f"[bold]Match over: {result} {mine}–{theirs}.[/bold]")
    elif view.get("round"):
        for line in _round_lines(view["round"], me, other):
            console.print(line)
    if message:
        console.print(markup_text(message, "red"))
    keys = key_map(view)
    if keys:
        choices = " ".join(f"\\[{k}] {markup_text(a['card']) if a['type'] == 'play' else WORDS[a['type']]}"
                           for k, a in keys.items())
        console.print(f"Your move: {choices}   \\[q] quit")


def _round_lines(rnd: dict[str, Any], me: str, other: str) -> list[str]:
    remainder = " · [bold]remainder round[/bold]" if rnd["remainder_round"] else ""
    number, dealer, value = (markup_text(rnd[field]) for field in ("number", "dealer", "value"))
    lines = [f"Round {number} · dealer {dealer} · worth {value}{remainder}"]
    for i, trick in enumerate(rnd["tricks"], 1):
        result = f"→ {markup_text(trick['winner'])}" if trick["winner"] else ("spoiled" if trick["spoiled"] else "")
        lines.append(f"  trick {i}: you {pretty(trick['cards'][me])}  them {pretty(trick['cards'][other])}  {result}")
    pending = rnd["pending"]
    if pending:
        asker = "you" if pending["by"] == me else "they"
        question = {"raise": f"2 more? (to {markup_text(pending['value'])})", "remainder": "my remainder!",
                    "redeal": "redeal?"}[pending["type"]]
        lines.append(f"  [yellow]{asker} asked: {question}[/yellow]")
    hand = "  ".join(f"\\[{i}] {pretty(card)}" for i, card in enumerate(rnd["hand"], 1))
    lines.append(f"Your hand: {hand}   ({'your turn' if rnd['turn'] == me else 'their turn'})")
    return lines


def _token_file(config: Config, name: str) -> Path:
    return config.data_dir / "players" / f"{name}.token"


def _player(client: TrucClient, config: Config, name: str) -> None:
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
                finished = view["status"] == "finished"
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


def _join(client: TrucClient, console: Console, match_id: str) -> dict[str, Any]:
    """Take seat B once the player said yes (and yes to a custom match's terms), or come back
    to a match one already sits in. A link never seats anyone by itself."""
    seen = client.view(match_id)
    if seen.get("you"):
        return seen
    creator = (seen.get("players") or {}).get("A") or {}
    console.print(f"{markup_text(creator.get('name', 'Someone'))} invites you to a match to "
                  f"{markup_text(seen.get('rules', {}).get('target', '?'))}.")
    if not click.confirm("Join it?", default=True):
        raise click.Abort()
    try:
        return client.join(match_id)
    except ApiError as error:
        if error.code == "ALREADY_SEATED":
            return client.view(match_id)
        if error.code != "CUSTOM_TERMS":
            raise
        console.print(markup_text(error.message))  # the server's sentence: what the creator chose
        if not click.confirm("Accept these terms and join?", default=False):
            raise click.Abort() from None
    return client.join(match_id, accept_custom=True)


@click.command()
@click.option("--name", required=True, help="Your player name (registered on first use; the token is kept "
                                            "under DATA_DIR/players).")
@click.option("--bot", "against_bot", is_flag=True, help="Play against the built-in bot.")
@click.option("--join", "join_id", help="Join a match a friend created (asks first; or come back to one of yours).")
@click.option("--url", help="The API (default: http://HOST:PORT from the environment).")
def play(name: str, against_bot: bool, join_id: str | None, url: str | None) -> None:
    """Play Le Truc in the terminal: create a match (for the bot or a friend) or join one."""
    config = Config.from_env()
    client = TrucClient(url or f"http://{config.host}:{config.port}")
    console = Console(highlight=False)
    try:
        _player(client, config, name)
        options = {"opponent": "bot"} if against_bot else {}
        view = _join(client, console, join_id) if join_id else client.create_match(**options)
    except ApiError as error:
        raise click.ClickException(printable(error.message)) from None
    with _keyboard() as keyboard, contextlib.suppress(KeyboardInterrupt):
        _session(client, console, view, keyboard)


def _session(client: TrucClient, console: Console, view: dict[str, Any], keyboard: int) -> None:
    inbox: queue.Queue = queue.Queue()
    threading.Thread(target=_feed, args=(inbox, client, view["id"]), daemon=True).start()
    threading.Thread(target=_keys, args=(inbox, keyboard), daemon=True).start()
    render(console, view)
    while True:
        kind, value = inbox.get()
        if kind == "view":
            if value["version"] != view["version"]:  # the stream opens with the view already drawn
                render(console, value)
            view = value
        elif kind == "key":
            if value in ("q", "\x03", "\x04"):
                return
            action = key_map(view).get(value)
            if action is not None:
                try:
                    client.act(view["id"], action, if_match=view["version"])
                except ApiError as error:
                    render(console, view, error.message)
        elif kind in ("ended", "error") and view["status"] == "finished":
            return
