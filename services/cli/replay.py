"""``truc replay MATCH``: the match round by round and trick by trick, in the terminal.

The lines are read off the rules engine, not off a reading of the events of this module's
own. Each stored event is folded with :func:`shared.fold.fold`, the one fold every reader
of a stream calls, and described with the match as it stood just before and just after
it: a trick's cards are the trick the engine's state holds when it is settled, and a
round's end says what it left on the table. So the replay cannot disagree with the engine
about where a card went: a card played in a round that then ends by a fold or a rejected
request belongs to that round, never to the next round's first trick. The lines themselves,
one describer per event type, are in :mod:`.replay_lines`: timeouts, the decisions they made,
resignations, abandonment, cancellations and how the match ended included.

Hands are hidden information: dealt and redealt hands show only with ``--reveal`` (or once
the match is over, when nothing is secret). Names, and every other string of the stream,
are untrusted and go through :func:`.untrusted.markup_text`.
"""
from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import click
from rich.console import Console

from shared.codec import UnknownEventError, decode
from shared.eventstore import StoredEvent
from shared.fold import FoldedMatch, GapError, fold
from shared.i18n import Translator
from shared.rules import events as ev

from .backends import MATCH_ID, backends
from .lang import ENGLISH, lang_option, terminal
from .replay_lines import Moment, left_on_table, line
from .untrusted import markup_text


def moments(stored: Sequence[StoredEvent], names: Mapping[str, str] | None = None) -> Iterator[Moment]:
    """Fold ``stored`` (a match's events, oldest first) one event at a time, keeping both sides;
    its players named by ``names``."""
    if not stored:
        return
    folded = FoldedMatch(stored[0].match_id)
    for record in stored:
        after = fold(folded, (record,))
        yield Moment(record.version, decode(record), folded.state, after.state, names or {})
        folded = after


def describe(stored: Sequence[StoredEvent], reveal: bool, tr: Translator = ENGLISH,
             names: Mapping[str, str] | None = None) -> Iterator[str]:
    """One line (rich markup) per moment worth showing; hands only when ``reveal``."""
    last: Moment | None = None
    for moment in moments(stored, names):
        text = line(moment, reveal, tr)
        if text:
            gap = "\n" if isinstance(moment.event, (ev.RoundDealt, ev.MatchWon, ev.MatchCancelled)) else ""
            yield f"{gap}{_version(moment.version)}{text}"
        last = moment
    left = left_on_table(last) if last else ""
    if left:  # stopped mid-trick (--at)
        yield _version(last.version) + "  " + tr.gettext("on the table: {cards}", cards=left)


def _names(ends: Any, stored: Sequence[StoredEvent]) -> dict[str, str]:
    """The directory's names of the players the match seats."""
    seated = [e.data[f] for e in stored if e.type in ("match_created", "player_joined")
              for f in ("creator_id", "player_id") if isinstance(e.data.get(f), str)]
    return ends.read_models.names(seated)


def _version(version: int) -> str:
    return f"[dim]v{version:<4}[/dim]"


@click.command()
@click.argument("match_id", type=MATCH_ID)
@click.option("--at", "at", type=click.IntRange(min=1), help="Stop after this version.")
@click.option("--reveal", is_flag=True, help="Show both hands (shown anyway once the match is finished).")
@lang_option
def replay(match_id: str, at: int | None, reveal: bool, lang: str) -> None:
    """Print MATCH round by round and trick by trick, with scores, raises and answers, timeouts,
    and how it ended (on score, resigned, abandoned, at the round limit, aborted, cancelled or expired)."""
    tr = terminal(lang)
    ends = backends()
    everything = ends.store.read(match_id)  # read once: whether the match was won decides what shows
    if not everything:
        click.echo(tr.gettext("no match {match}", match=repr(match_id)), err=True)
        sys.exit(1)
    finished = any(e.type == "match_won" for e in everything)
    console = Console(highlight=False, emoji=False)  # names are shown as written, ":x:" included
    try:
        for text in describe(everything[:at], reveal or finished, tr, _names(ends, everything)):
            console.print(text)
    except (GapError, UnknownEventError) as error:  # a damaged stream: what came before it is shown
        console.print("[red]" + tr.gettext("cannot replay further: {error}", error=markup_text(error)) + "[/red] "
                      + tr.gettext("(see truc audit)"))
        sys.exit(1)
