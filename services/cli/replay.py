"""``truc replay MATCH``: the match round by round and trick by trick, in the terminal."""
from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator

import click
from rich.console import Console

from shared.codec import decode
from shared.eventstore import StoredEvent
from shared.rules import events as ev

from .context import backends


def _hand(cards: Iterable[str]) -> str:
    return " ".join(cards)


def describe(stored: Iterable[StoredEvent], reveal: bool) -> Iterator[str]:
    """One line (rich markup) per moment worth showing; hands only when ``reveal``."""
    table: list[str] = []
    v = ""
    for record in stored:
        event, v = decode(record), f"[dim]v{record.version:<4}[/dim]"
        if isinstance(event, ev.MatchCreated):
            rules = ", ".join(f"{k}={val}" for k, val in event.rules.to_dict().items())
            custom = " [yellow](custom)[/yellow]" if event.custom else ""
            start = f" · scores start {event.start_scores[0]}–{event.start_scores[1]}" if event.custom else ""
            yield f"{v}[bold]Match {event.match_id}[/bold]{custom} · A: {event.creator_name}{start} · {rules}"
        elif isinstance(event, ev.PlayerJoined):
            yield f"{v}B: {event.player_name} joins"
        elif isinstance(event, ev.RoundDealt):
            hands = f" · A: {_hand(event.hands[0])} · B: {_hand(event.hands[1])}" if reveal else ""
            yield f"\n{v}[bold cyan]Round {event.round}[/bold cyan] · dealer {event.dealer.value}{hands}"
        elif isinstance(event, ev.CardPlayed):
            table.append(f"{event.seat.value} {event.card}")
        elif isinstance(event, (ev.TrickWon, ev.TrickSpoiled)):
            outcome = f"→ {event.seat.value}" if isinstance(event, ev.TrickWon) else "→ spoiled"
            yield f"{v}  trick {event.trick}: {', '.join(table)} {outcome}"
            table = []
        elif isinstance(event, ev.RoundWon):
            scores = f"A {event.scores[0]} · B {event.scores[1]}"
            won = f"[green]round won by {event.seat.value}[/green]"
            yield f"{v}  {won} (+{event.points}, {event.reason.value}) → {scores}"
        elif isinstance(event, ev.MatchWon):
            seed = f" · seed {event.seed}" if event.seed else ""
            won = f"[bold green]Match won by {event.seat.value}[/bold green]"
            yield f"\n{v}{won} {event.scores[0]}–{event.scores[1]}{seed}"
        else:
            line = _question_line(event)
            if line:
                yield f"{v}  {line}"
    if table:  # stopped mid-trick (--at)
        yield f"{v}  on the table: {', '.join(table)}"


def _question_line(event: ev.Event) -> str:
    seat = getattr(event, "seat", None)
    who = seat.value if seat else "?"
    match event:
        case ev.RaiseProposed(value=value):
            return f"{who} raises: \"2 more?\" (to {value})"
        case ev.RaiseAccepted(value=value):
            return f"{who} accepts: the round is worth {value}"
        case ev.RemainderDeclared():
            return f"{who} declares [bold]my remainder[/bold]"
        case ev.RedealAccepted(hands=hands):
            return f"{who} accepts the redeal · new hands A: {_hand(hands[0])} · B: {_hand(hands[1])}"
        case ev.RoundVoid():
            return "[yellow]round void[/yellow]: three spoiled tricks"
        case ev.Folded():
            return f"[red]{who} folds[/red]"
    words = {
        ev.RaiseRejected: "rejects the raise", ev.RemainderAccepted: "accepts the remainder",
        ev.RemainderRejected: "rejects the remainder", ev.RedealProposed: "proposes a redeal",
        ev.RedealRejected: "rejects the redeal",
    }
    return f"{who} {words[type(event)]}" if type(event) in words else ""


@click.command()
@click.argument("match_id")
@click.option("--at", "at", type=click.IntRange(min=1), help="Stop after this version.")
@click.option("--reveal", is_flag=True, help="Show both hands (shown anyway once the match is finished).")
def replay(match_id: str, at: int | None, reveal: bool) -> None:
    """Print MATCH round by round and trick by trick, with scores, raises and answers."""
    everything = backends().store.read(match_id)  # read once: whether the match was won decides what shows
    if not everything:
        click.echo(f"no match {match_id!r}", err=True)
        sys.exit(1)
    finished = any(e.type == "match_won" for e in everything)
    console = Console(highlight=False)
    for line in describe(everything[:at], reveal or finished):
        console.print(line)
