"""``truc seek`` and ``truc leaderboard``: quick pairing and the ratings, in the terminal.

``truc seek`` opens a seek and waits on the player's stream until it is paired, then says
which match to play (``truc play --join``); a seek that expires, or is dropped because the
player sat down in as many matches as a player may meanwhile, ends it with the reason (exit
status 1); Ctrl-C withdraws the seek. Names and ids come
from the server: each is printed as data, never as markup.
"""
from __future__ import annotations

import shlex

import click
from rich.console import Console

from services.client import ApiError, TrucClient
from shared.config import Config

from .lang import lang_option, terminal
from .play import log_in
from .untrusted import markup_text, name_text, printable


@click.command()
@click.option("--name", required=True, help="Your player name (registered on first use).")
@click.option("--unrated", is_flag=True, help="Seek an unrated match (rated by default).")
@click.option("--url", help="The API (default: http://HOST:PORT from the environment).")
@lang_option
def seek(name: str, unrated: bool, url: str | None, lang: str) -> None:
    """Seek an opponent of about your rating; wait until paired."""
    config = Config.from_env()
    client = TrucClient(url or f"http://{config.host}:{config.port}", accept_language=lang)
    console, tr = Console(highlight=False), terminal(lang)
    try:
        log_in(client, config, name)
        opened = client.seek(rated=not unrated)
    except ApiError as error:
        raise click.ClickException(printable(error.message)) from None
    console.print(tr.gettext("Looking for an opponent (until {time})...", time=markup_text(opened["expires_at"])))
    try:
        for notice in client.player_stream(opened["player"]):
            if notice.event == "seek" and (notice.data or {}).get("seek_id") == opened["id"]:
                raise click.ClickException(_seek_ended(tr, notice.data))
            if notice.event == "paired" and (notice.data or {}).get("seek_id") == opened["id"]:
                match_id = markup_text(notice.data["match_id"])
                console.print(tr.gettext("Paired: match {match}, you sit in {seat}.", match=match_id,
                                         seat=markup_text(notice.data["seat"])))
                console.print(tr.gettext("Play it: truc play --name {name} --join {match}",  # a command to copy:
                                         name=markup_text(shlex.quote(name)), match=match_id))  # as a shell reads it
                return
    except KeyboardInterrupt:
        client.withdraw_seek(opened["id"])
        console.print(tr.gettext("Seek withdrawn."))


def _seek_ended(tr, notice: dict) -> str:
    """Why the server ended the seek (its ``seek`` notice: expired, or dropped at the cap on matches)."""
    if notice.get("status") == "expired":
        return tr.gettext("No opponent of your rating was found in time: your seek has expired.")
    return tr.gettext("Your seek was dropped: you sit in as many unfinished matches as a player may.")


@click.command()
@click.option("--limit", type=click.IntRange(1, 500), default=20, show_default=True, help="Rows to show.")
@click.option("--url", help="The API (default: http://HOST:PORT from the environment).")
@lang_option
def leaderboard(limit: int, url: str | None, lang: str) -> None:
    """The rated players with settled ratings, highest first."""
    config = Config.from_env()
    client = TrucClient(url or f"http://{config.host}:{config.port}", accept_language=lang)
    console, tr = Console(highlight=False), terminal(lang)
    try:
        rows = client.leaderboard(limit)
    except ApiError as error:
        raise click.ClickException(printable(error.message)) from None
    if not rows:
        console.print(tr.gettext("Nobody has a settled rating yet."))
    for rank, row in enumerate(rows, 1):
        rating, rd = round(row["rating"]), round(row["rd"])
        console.print(tr.gettext("{rank}. {name}: {rating} (±{rd}, {games} games)", rank=rank,
                                 name=name_text(row["name"]), rating=rating, rd=rd, games=row["games"]))
