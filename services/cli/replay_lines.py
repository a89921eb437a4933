"""``truc replay``'s lines: one describer per event type, reading the match off the engine.

Each :class:`Moment` is a stored event with the match just before and just after it (the
engine's fold), and each describer turns one into a line of rich markup. A test holds
:data:`DESCRIBERS` to the engine's list of event types, so a new event is described, not
skipped. What a stream says (names, a deadline) is untrusted and goes through
:func:`.untrusted.markup_text`.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from shared.rules import CancelReason, MatchState, Seat, WinReason, iso_utc
from shared.rules import events as ev
from shared.rules.state import RoundState, Trick

from .untrusted import markup_text, name_text


@dataclass(frozen=True)
class Moment:
    """One stored event, with the match just before and just after it."""

    version: int
    event: ev.Event
    before: MatchState
    after: MatchState


def line(moment: Moment, reveal: bool) -> str:
    """The moment's line, or "" for none; a decision a timeout made says so (R29)."""
    text = DESCRIBERS[type(moment.event)](moment, reveal)
    return text + " [dim](by default: the time ran out)[/dim]" if text and _by_default(moment) else text


def left_on_table(moment: Moment) -> str:
    """The cards of a trick not yet settled after the moment (stopped mid-trick), or ""."""
    left = _on_table(moment.after.round)
    return _cards(left) if left else ""


# --- Pieces of a line -------------------------------------------------------------------


def _name(state: MatchState, seat: Seat) -> str:
    player = state.players[seat.index]
    return name_text(player.name) if player else "?"


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


def _by_default(moment: Moment) -> bool:  # the decision a timeout just made for its seat (R29)
    seat = getattr(moment.event, "seat", None)
    return not isinstance(moment.event, ev.TurnTimedOut) and seat is not None and moment.before.defaulting is seat


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
    state, reason = moment.after, moment.event.reason
    seed = f" · seed {markup_text(state.seed)}" if state.seed else ""
    won = f"[bold green]Match won by {state.winner.value}[/bold green]"
    return f"{won} {state.scores[0]}–{state.scores[1]} · {_ENDED[reason].format(loser=state.winner.other.value)}{seed}"


_ENDED = {  # how a won match ended (R30-R31), given the loser
    WinReason.SCORE: "on score",
    WinReason.RESIGNED: "[red]{loser} resigned[/red]",
    WinReason.ABANDONED: "[red]{loser} abandoned it[/red]: time ran out twice in a row",
}


def _timed_out(moment: Moment, reveal: bool) -> str:
    seat = moment.event.seat
    again = " again, twice in a row" if moment.before.timeouts[seat.index] else ""
    return f"  [red]{seat.value}'s time ran out[/red]{again} · deadline {markup_text(_deadline(moment.event))}"


def _deadline(event: ev.TurnTimedOut) -> str:
    try:
        return iso_utc(event.deadline)
    except (OverflowError, ValueError):  # a stream rewritten by hand: shown as it is
        return str(event.deadline)


def _cancelled(moment: Moment, reveal: bool) -> str:
    if moment.event.reason is CancelReason.CREATOR:
        return f"[yellow]Match cancelled by its creator[/yellow] {_name(moment.after, Seat.A)}"
    return "[yellow]Match cancelled: it expired[/yellow], nobody joined in time"


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
    ev.TurnTimedOut: _timed_out,
    ev.MatchCancelled: _cancelled,
}
