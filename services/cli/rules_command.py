"""``truc rules``: how to play, in the terminal's language (the same text as ``GET /rules``)."""
from __future__ import annotations

import click
from rich.console import Console

from shared.i18n import how_to_play

from .lang import lang_option
from .untrusted import markup_text


@click.command(name="rules")
@lang_option
def rules(lang: str) -> None:
    """How to play Le Truc: the cards, a round, raises, "my remainder", the answers, the clock."""
    console = Console(highlight=False)
    for _key, title, paragraphs in how_to_play.said(lang):
        console.print(f"[bold]{markup_text(title)}[/bold]")
        for text in paragraphs:
            console.print(markup_text(text))
        console.print()
