"""``truc replay MATCH``: the match round by round and trick by trick, in the terminal.

The lines are read off the rules engine, not off a reading of the events of this module's
own. Each stored event is folded with :func:`shared.fold.fold`, the one fold every reader
of a stream calls, and described with the match as it stood just before and just after
it: a trick's cards are the trick the engine's state holds when it is settled, and a
round's end says what it left on the table. So the replay cannot disagree with the engine
about where a card went: a card played in a round that then ends by a fold or a rejected
request belongs to that round, never to the next round's first trick.

Hands are hidden information: dealt and redealt hands show only with ``--reveal`` (or once
the match is over, when nothing is secret). Names, and every other string of the stream,
are untrusted and go through :func:`.untrusted.markup_text`.
"""
from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import click
from rich.console import Console

from shared.codec import UnknownEventError, decode
from shared.eventstore import StoredEvent
from shared.fold import FoldedMatch, GapError, fold
from shared.rules import MatchState, Seat
from shared.rules import events as ev
from shared.rules.state import RoundState, Trick

from .context import MATCH_ID, backends
from .untrusted import markup_text


@dataclass(frozen=True)
class Moment:
    """One stored event, with the match just before and just after it."""

    version: int
    event: ev.Event
    before: MatchState
    after: MatchState


def moments(stored: Sequence[StoredEvent]) -> Iterator[Moment]:
    """Fold ``stored`` (a match's events, oldest first) one event at a time, keeping both sides."""
    if not stored:
        return
    folded = FoldedMatch(stored[0].match_id)
    for record in stored:
        after = fold(folded, (record,))
        yield Moment(record.version, decode(record), folded.state, after.state)
        folded = after


def describe(stored: Sequence[StoredEvent], reveal: bool) -> Iterator[str]:
    """One line (rich markup) per moment worth showing; hands only when ``reveal``."""
    last: Moment | None = None
    for moment in moments(stored):
        text = DESCRIBERS[type(moment.event)](moment, reveal)
        if text:
            gap = "\n" if isinstance(moment.event, (ev.RoundDealt, ev.MatchWon)) else ""
            yield f"{gap}{_version(moment.version)}{text}"
        last = moment
    left = _on_table(last.after.round) if last else None
    if last and left:  # stopped mid-trick (--at)
        yield f"{_version(last.version)}  on the table: {_cards(left)}"


# --- Pieces of a line -------------------------------------------------------------------


def _version(version: int) -> str:
    return f"[dim]v{version:<4}[/dim]"


def _name(state: MatchState, seat: Seat) -> str:
    player = state.players[seat.index]
    return markup_text(player.name) if player else "?"


def _hands(rnd: RoundState) -> str:
    return f"A: {markup_text(' '.join(rnd.hands[0]))} · B: {markup_text(' '.join(rnd.hands[1]))}"


def _cards(trick: Trick) -> str:
    """The trick's cards in the order they were played: the leader's first."""
    order = (trick.leader, trick.leader.other)
    return ", ".join(f"{seat.value} {markup_text(trick.cards[seat.index])}"
                     for seat in order if trick.cards[seat.index] is not None)


def _on_table(rnd: RoundState | None) -> Trick | None:
    """The round's trick not yet settled, if any: one card waiting for the other, or
    (stopped with ``--at`` between a second card and its trick's outcome) both."""
    last = rnd.tricks[-1] if rnd is not None and rnd.tricks else None
    if last is None or last.winner is not None or last.spoiled:
        return None
    return last


def _who(moment: Moment) -> str:
    seat = getattr(moment.event, "seat", None)
    return seat.value if isinstance(seat, Seat) else "?"


# --- One describer per event type: (moment, reveal) -> its line, or "" for none -----------


Describer = Callable[[Moment, bool], str]


def _silent(moment: Moment, reveal: bool) -> str:
    return ""  # a card played shows with its trick, once the trick is settled


def _created(moment: Moment, reveal: bool) -> str:
    state = moment.after
    rules = ", ".join(f"{key}={value}" for key, value in state.rules.to_dict().items())
    custom = " [yellow](custom)[/yellow]" if state.custom else ""
    start = f" · scores start {state.scores[0]}–{state.scores[1]}" if state.custom else ""
    match = f"[bold]Match {markup_text(state.match_id)}[/bold]"
    return f"{match}{custom} · A: {_name(state, Seat.A)}{start} · {markup_text(rules)}"


def _joined(moment: Moment, reveal: bool) -> str:
    return f"{_who(moment)}: {_name(moment.after, moment.event.seat)} joins"


def _dealt(moment: Moment, reveal: bool) -> str:
    rnd = moment.after.round
    hands = f" · {_hands(rnd)}" if reveal else ""
    return f"[bold cyan]Round {rnd.number}[/bold cyan] · dealer {rnd.dealer.value}{hands}"


def _redealt(moment: Moment, reveal: bool) -> str:
    hands = f" · new hands {_hands(moment.after.round)}" if reveal else ""
    return f"  {_who(moment)} accepts the redeal{hands}"


def _trick(moment: Moment, reveal: bool) -> str:
    tricks = moment.after.round.tricks
    settled = tricks[-1]
    outcome = f"→ {settled.winner.value}" if settled.winner else "→ spoiled"
    return f"  trick {len(tricks)}: {_cards(settled)} {outcome}"


def _raised(moment: Moment, reveal: bool) -> str:
    return f"  {_who(moment)} raises: \"2 more?\" (to {moment.after.round.pending.value})"


def _raise_accepted(moment: Moment, reveal: bool) -> str:
    return f"  {_who(moment)} accepts: the round is worth {moment.after.round.value}"


def _round_won(moment: Moment, reveal: bool) -> str:
    ended, (a, b) = moment.after.last_round, moment.after.scores
    left = _on_table(moment.before.round)  # a fold or a rejection can end a round mid-trick
    unplayed = f" · left on the table: {_cards(left)}" if left else ""
    won = f"[green]round won by {ended.winner.value}[/green]"
    return f"  {won} (+{ended.points}, {ended.reason.value}) → A {a} · B {b}{unplayed}"


def _match_won(moment: Moment, reveal: bool) -> str:
    state = moment.after
    seed = f" · seed {markup_text(state.seed)}" if state.seed else ""
    won = f"[bold green]Match won by {state.winner.value}[/bold green]"
    reason = moment.event.reason.value
    why = "" if reason == "score" else f" ({reason})"
    return f"{won} {state.scores[0]}–{state.scores[1]}{why}{seed}"


def _cancelled(moment: Moment, reveal: bool) -> str:
    why = "by its creator" if moment.event.reason.value == "creator" else "nobody joined in time"
    return f"[yellow]Match cancelled[/yellow]: {why}"


def _says(words: str) -> Describer:
    return lambda moment, reveal: f"  {_who(moment)} {words}"


# Every event type the engine records (a test holds this to EVENT_TYPES): a new one is described, not skipped.
DESCRIBERS: dict[type[ev.Event], Describer] = {
    ev.MatchCreated: _created,
    ev.PlayerJoined: _joined,
    ev.RoundDealt: _dealt,
    ev.RedealProposed: _says("proposes a redeal"),
    ev.RedealAccepted: _redealt,
    ev.RedealRejected: _says("rejects the redeal"),
    ev.CardPlayed: _silent,
    ev.TrickWon: _trick,
    ev.TrickSpoiled: _trick,
    ev.RaiseProposed: _raised,
    ev.RaiseAccepted: _raise_accepted,
    ev.RaiseRejected: _says("rejects the raise"),
    ev.RemainderDeclared: _says("declares [bold]my remainder[/bold]"),
    ev.RemainderAccepted: _says("accepts the remainder"),
    ev.RemainderRejected: _says("rejects the remainder"),
    ev.Folded: lambda moment, reveal: f"  [red]{_who(moment)} folds[/red]",
    ev.RoundWon: _round_won,
    ev.RoundVoid: lambda moment, reveal: "  [yellow]round void[/yellow]: three spoiled tricks",
    ev.MatchWon: _match_won,
    ev.TurnTimedOut: _says("lets the clock run out"),
    ev.MatchCancelled: _cancelled,
}


@click.command()
@click.argument("match_id", type=MATCH_ID)
@click.option("--at", "at", type=click.IntRange(min=1), help="Stop after this version.")
@click.option("--reveal", is_flag=True, help="Show both hands (shown anyway once the match is finished).")
def replay(match_id: str, at: int | None, reveal: bool) -> None:
    """Print MATCH round by round and trick by trick, with scores, raises and answers."""
    everything = backends().store.read(match_id)  # read once: whether the match was won decides what shows
    if not everything:
        click.echo(f"no match {match_id!r}", err=True)
        sys.exit(1)
    finished = any(e.type == "match_won" for e in everything)
    console = Console(highlight=False, emoji=False)  # names are shown as written, ":x:" included
    try:
        for line in describe(everything[:at], reveal or finished):
            console.print(line)
    except (GapError, UnknownEventError) as error:  # a damaged stream: what came before it is shown
        console.print(f"[red]cannot replay further: {markup_text(error)}[/red] (see truc audit)")
        sys.exit(1)
