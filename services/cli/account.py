"""``truc login`` and ``truc matches``: a player's account from the terminal.

``truc login --name alice`` asks for the password (never echoed, never an option: it would
stay in the shell's history) and keeps the new session's token where ``truc play`` looks for
it (``DATA_DIR/players``), replacing any token kept before. ``truc matches --name alice``
lists the player's matches, newest first, and ``--resume ID`` plays one on.
"""
from __future__ import annotations

import contextlib

import click
from rich.console import Console

from services.client import ApiError, TrucClient
from shared.config import Config
from shared.private_files import private_dir, read_secret, write_secret

from .lang import lang_option, terminal
from .play import _join, _keyboard, _session, _token_file
from .untrusted import markup_text, name_text, printable

STATUSES = ("playing", "waiting", "finished", "cancelled")


def _client(url: str | None, lang: str) -> tuple[TrucClient, Config]:
    config = Config.from_env()
    return TrucClient(url or f"http://{config.host}:{config.port}", accept_language=lang), config


@click.command()
@click.option("--name", required=True, help="The player to log in as.")
@click.option("--url", help="The API (default: http://HOST:PORT from the environment).")
@lang_option
def login(name: str, url: str | None, lang: str) -> None:
    """Log in as a player with a password: this terminal gets a token of its own (a session)."""
    client, config = _client(url, lang)
    tr = terminal(lang)
    password = click.prompt(tr.gettext("Password"), hide_input=True)
    try:
        player = client.log_in(name, password)
    except ApiError as error:
        raise click.ClickException(printable(error.message)) from None
    path = _token_file(config, name)
    private_dir(path.parent)
    path.unlink(missing_ok=True)  # the token kept before (perhaps revoked) gives way to the new one
    write_secret(path, player.token)
    Console(highlight=False).print(tr.gettext("Logged in as {name}: truc play --name plays as them here.",
                                              name=name_text(player.name)))


@click.command()
@click.option("--name", required=True, help="The player whose matches to list (logged in on this terminal).")
@click.option("--status", type=click.Choice(STATUSES), default="playing", show_default=True)
@click.option("--resume", "resume_id", help="Play on in this match (one of the ids listed).")
@click.option("--url", help="The API (default: http://HOST:PORT from the environment).")
@lang_option
def matches(name: str, status: str, resume_id: str | None, url: str | None, lang: str) -> None:
    """List your matches, newest first, and resume one."""
    client, config = _client(url, lang)
    console, tr = Console(highlight=False), terminal(lang)
    client.token = read_secret(_token_file(config, name))
    if not client.token:
        raise click.ClickException(tr.gettext("No token is kept for this player here: run truc login first."))
    try:
        if resume_id:
            view = _join(client, console, resume_id, tr)
        else:
            _list(client, console, status, tr)
            return
    except ApiError as error:
        raise click.ClickException(printable(error.message)) from None
    with _keyboard() as keyboard, contextlib.suppress(KeyboardInterrupt):
        _session(client, console, view, keyboard, tr)


def _list(client: TrucClient, console: Console, status: str, tr) -> None:
    listed = client.own_matches(status, limit=200)
    if not listed:
        console.print(tr.gettext("No matches."))
        return
    for match in listed:
        seats = [name_text(seat["name"]) for seat in (match.get("players") or {}).values() if seat]
        scores = match.get("scores") or {}
        console.print(f"{markup_text(match['id'])}  {' – '.join(seats)}  "
                      f"{markup_text(scores.get('A', 0))}–{markup_text(scores.get('B', 0))}")
    console.print(tr.gettext("Play one on: truc matches --name NAME --resume ID"))
