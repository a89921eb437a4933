"""``truc replay``'s lines: one describer per event type, reading the match off the engine.

Each :class:`Moment` is a stored event with the match just before and just after it (the
engine's fold), and each describer turns one into a line of rich markup. A test holds
:data:`DESCRIBERS` to the engine's list of event types, so a new event is described, not
skipped. What a stream says (names, a deadline) is untrusted and goes through
:func:`.untrusted.markup_text`.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from shared.i18n import Translator
from shared.rules import CancelReason, Ending, MatchState, Seat, WinReason, iso_utc
from shared.rules import events as ev
from shared.rules.rule_errors import N_
from shared.rules.state import RoundState, Trick

from .lang import ENGLISH
from .untrusted import markup_text, name_text


@dataclass(frozen=True)
class Moment:
    """One stored event, with the match just before and just after it."""

    version: int
    event: ev.Event
    before: MatchState
    after: MatchState
    names: Mapping[str, str] = field(default_factory=dict)  # player id -> name (the player directory's)


def line(moment: Moment, reveal: bool, tr: Translator = ENGLISH) -> str:
    """The moment's line, or "" for none; a decision a timeout made says so (R29)."""
    text = DESCRIBERS[type(moment.event)](moment, reveal, tr)
    if text and _by_default(moment):
        return text + " [dim]" + tr.gettext("(by default: the time ran out)") + "[/dim]"
    return text


def left_on_table(moment: Moment) -> str:
    """The cards of a trick not yet settled after the moment (stopped mid-trick), or ""."""
    left = _on_table(moment.after.round)
    return _cards(left) if left else ""


# --- Pieces of a line -------------------------------------------------------------------


def _name(moment: Moment, state: MatchState, seat: Seat) -> str:
    player = state.players[seat.index]
    return name_text(moment.names.get(player.id, player.id)) if player else "?"


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


Describer = Callable[[Moment, bool, Translator], str]


def _silent(moment: Moment, reveal: bool, tr: Translator) -> str:
    return ""  # a card played shows with its trick, once the trick is settled


def _created(moment: Moment, reveal: bool, tr: Translator) -> str:
    state, _ = moment.after, tr.gettext
    rules = ", ".join(f"{key}={value}" for key, value in state.rules.to_dict().items())
    custom = " [yellow]" + _("(custom)") + "[/yellow]" if state.custom else ""
    start = " · " + _("scores start {a}–{b}", a=state.scores[0], b=state.scores[1]) if state.custom else ""
    match = "[bold]" + _("Match {match}", match=markup_text(state.match_id)) + "[/bold]"
    return f"{match}{custom} · A: {_name(moment, state, Seat.A)}{start} · {markup_text(rules)}"


def _joined(moment: Moment, reveal: bool, tr: Translator) -> str:
    return tr.gettext("{seat}: {name} joins", seat=_who(moment), name=_name(moment, moment.after, moment.event.seat))


def _dealt(moment: Moment, reveal: bool, tr: Translator) -> str:
    rnd = moment.after.round
    hands = f" · {_hands(rnd)}" if reveal else ""
    title = tr.gettext("Round {number}", number=rnd.number)
    return f"[bold cyan]{title}[/bold cyan] · " + tr.gettext("dealer {seat}", seat=rnd.dealer.value) + hands


def _redealt(moment: Moment, reveal: bool, tr: Translator) -> str:
    hands = " · " + tr.gettext("new hands {hands}", hands=_hands(moment.after.round)) if reveal else ""
    return "  " + tr.gettext("{seat} accepts the redeal", seat=_who(moment)) + hands


def _trick(moment: Moment, reveal: bool, tr: Translator) -> str:
    tricks = moment.after.round.tricks
    settled = tricks[-1]
    outcome = f"→ {settled.winner.value}" if settled.winner else "→ " + tr.gettext("spoiled")
    return "  " + tr.gettext("trick {number}: {cards} {outcome}", number=len(tricks), cards=_cards(settled),
                             outcome=outcome)


def _raised(moment: Moment, reveal: bool, tr: Translator) -> str:
    value = moment.after.round.pending.value
    return "  " + tr.gettext('{seat} raises: "2 more?" (to {value})', seat=_who(moment), value=value)


def _raise_accepted(moment: Moment, reveal: bool, tr: Translator) -> str:
    value = moment.after.round.value
    return "  " + tr.ngettext("{seat} accepts: the round is worth {count} point",
                              "{seat} accepts: the round is worth {count} points", value, seat=_who(moment))


def _round_won(moment: Moment, reveal: bool, tr: Translator) -> str:
    ended, (a, b), _ = moment.after.last_round, moment.after.scores, tr.gettext
    left = _on_table(moment.before.round)  # a fold or a rejection can end a round mid-trick
    unplayed = " · " + _("left on the table: {cards}", cards=_cards(left)) if left else ""
    won = "[green]" + _("round won by {seat}", seat=ended.winner.value) + "[/green]"
    why = _(_WHY.get(ended.reason.value, ended.reason.value))
    return f"  {won} (+{ended.points}, {why}) → A {a} · B {b}{unplayed}"


# Why a round was won: the engine's reason, which the English line shows as it is.
_WHY = {"tricks": N_("tricks"), "raise_rejected": N_("raise_rejected"), "remainder_rejected": N_("remainder_rejected"),
        "fold": N_("fold")}


def _match_won(moment: Moment, reveal: bool, tr: Translator) -> str:
    state, reason, _ = moment.after, moment.event.reason, tr.gettext
    seed = " · " + _("seed {seed}", seed=markup_text(state.seed)) if state.seed else ""
    won = "[bold green]" + _("Match won by {seat}", seat=state.winner.value) + "[/bold green]"
    sentence, tail = _ENDED[reason]
    how = _(sentence, loser=state.winner.other.value)
    how = "[red]" + how + "[/red]" + (_(tail) if tail else "") if tail is not None else how
    if state.ended_by is Ending.ABORTED:
        how += " · [yellow]" + _("aborted before round 1 was over: it does not count") + "[/yellow]"
    return f"{won} {state.scores[0]}–{state.scores[1]} · {how}{seed}"


_ENDED = {  # how a won match ended (R30-R31), given the loser: (the sentence, what follows it in plain text)
    WinReason.SCORE: (N_("on score"), None),
    WinReason.RESIGNED: (N_("{loser} resigned"), ""),
    WinReason.ABANDONED: (N_("{loser} abandoned it"), N_(": time ran out twice in a row")),
    WinReason.ROUND_CAP: (N_("on score at the round limit"), None),  # R33
}


def _timed_out(moment: Moment, reveal: bool, tr: Translator) -> str:
    seat, _ = moment.event.seat, tr.gettext
    again = _(" again, twice in a row") if moment.before.timeouts[seat.index] else ""
    deadline = _("deadline {time}", time=markup_text(_deadline(moment.event)))
    ran_out = _("{seat}'s time ran out", seat=seat.value)
    return f"  [red]{ran_out}[/red]{again} · {deadline}"


def _deadline(event: ev.TurnTimedOut) -> str:
    try:
        return iso_utc(event.deadline)
    except (OverflowError, ValueError):  # a stream rewritten by hand: shown as it is
        return str(event.deadline)


def _cancelled(moment: Moment, reveal: bool, tr: Translator) -> str:
    if moment.event.reason is CancelReason.CREATOR:
        creator = _name(moment, moment.after, Seat.A)
        return "[yellow]" + tr.gettext("Match cancelled by its creator") + "[/yellow] " + creator
    return "[yellow]" + tr.gettext("Match cancelled: it expired") + "[/yellow]" + tr.gettext(", nobody joined in time")


def _says(words: str) -> Describer:
    """A line of a seat doing something: ``words`` holds ``{seat}``."""
    return lambda moment, reveal, tr: "  " + tr.gettext(words, seat=_who(moment))


# Every event type the engine records (a test holds this to EVENT_TYPES): a new one is described, not skipped.
DESCRIBERS: dict[type[ev.Event], Describer] = {
    ev.MatchCreated: _created,
    ev.PlayerJoined: _joined,
    ev.RoundDealt: _dealt,
    ev.RedealProposed: _says(N_("{seat} proposes a redeal")),
    ev.RedealAccepted: _redealt,
    ev.RedealRejected: _says(N_("{seat} rejects the redeal")),
    ev.CardPlayed: _silent,
    ev.TrickWon: _trick,
    ev.TrickSpoiled: _trick,
    ev.RaiseProposed: _raised,
    ev.RaiseAccepted: _raise_accepted,
    ev.RaiseRejected: _says(N_("{seat} rejects the raise")),
    ev.RemainderDeclared: _says(N_("{seat} declares my remainder")),
    ev.RemainderAccepted: _says(N_("{seat} accepts the remainder")),
    ev.RemainderRejected: _says(N_("{seat} rejects the remainder")),
    ev.Folded: lambda moment, reveal, tr: "  [red]" + tr.gettext("{seat} folds", seat=_who(moment)) + "[/red]",
    ev.RoundWon: _round_won,
    ev.RoundVoid: lambda moment, reveal, tr: "  [yellow]" + tr.gettext("round void: three spoiled tricks")
    + "[/yellow]",
    ev.MatchWon: _match_won,
    ev.TurnTimedOut: _timed_out,
    ev.MatchCancelled: _cancelled,
}
