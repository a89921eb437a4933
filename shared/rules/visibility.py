"""What a seat may see: the one place the engine decides hidden information.

A card is shown to the seat that holds it, to everyone once it has been played to the
table in its round, and to everyone once the match is finished. The stock is never shown
before the end (only those of its cards that a redeal dealt and a seat then played).

Two things leave the engine for an audience (a seat, or ``None`` for a spectator): the
match as it stands (:func:`view`, built from the state) and the recorded facts
(:func:`shown`). Events carry every card, because chance is recorded, so none may leave
unshown. What an event shows depends on the whole table so far, not on the event alone:
a card played later in the round shows in the deal that dealt it. Rounds matter too: the
same card is dealt again in later rounds, so a card played in round 2 says nothing of
where it lay in round 1.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .clock import deadline, iso_utc, owes
from .events import CardPlayed, Event, Hands, MatchCreated, MatchWon, RedealAccepted, RoundDealt
from .legal import legal_actions
from .state import SEATS, MatchState, RoundState, RoundSummary, Seat, Status, Trick, copy_with

Audience = Seat | None  # a seat, or None: a spectator (or a player not seated in the match)
Cards = tuple[str | None, ...]  # cards as shown: None where one is hidden


Names = Mapping[str, str]  # each player id's name as served (the player directory's: the engine holds ids)


def view(state: MatchState, seat: Audience, reveal: bool = False, names: Names | None = None) -> dict[str, Any]:
    """A JSON-ready view shaped as the HTTP API's match view (without id and version).

    ``reveal`` adds both hands: for replaying a finished match, where nothing is secret.
    ``names``: the seated players' names (a player missing from it is shown with none).
    """
    return views(state, (seat,), reveal, names)[0]


def views(state: MatchState, audiences: Sequence[Audience], reveal: bool = False,
          names: Names | None = None) -> list[dict[str, Any]]:
    """:func:`view` for each of ``audiences``; what every audience sees alike is built once, and
    the views share it (the projector writes three views of every match it catches up)."""
    rules, scores, fairness = state.rules.to_dict(), _by_seat(state.scores), {
        "seed_commitment": state.seed_commitment, "seed": state.seed}
    named = names or {}
    players = {s.value: (None if p is None else {"id": p.id, "name": named.get(p.id)})
               for s, p in zip(SEATS, state.players)}
    last_round = _last_round(state.last_round) if state.last_round else None
    clock, ended_by = _clock(state), state.ended_by.value if state.ended_by else None
    bot = {} if state.bot_level is None else {"bot_level": state.bot_level}  # only a bot match says it
    shown = []
    for seat in audiences:
        seated = seat is not None and state.status is not Status.NEW
        shown.append({
            "status": state.status.value,
            "rules": rules,
            "custom": state.custom,
            "rated": state.rated,
            "players": players,
            "scores": scores,
            "winner": state.winner.value if state.winner else None,
            "you": seat.value if seated else None,
            "round": _round(state.round, seat, reveal) if state.round else None,
            "last_round": last_round,
            "legal_actions": [c.body() for c in legal_actions(state, seat)] if seated else [],
            "fairness": fairness,
            "clock": clock,
            "ended_by": ended_by,
            **bot,
        })
    return shown


def _clock(state: MatchState) -> dict[str, Any] | None:
    """R28: who owes the next decision and by when, while the match is playing.

    ``deadline`` is null for a state folded without the events' times (a bare ``replay``).
    """
    seat = owes(state)
    if seat is None:
        return None
    due = deadline(state)
    return {
        "seat": seat.value,
        "deadline": None if due is None else iso_utc(due),
        "turn_seconds": state.rules.turn_seconds,
    }


def replay_view(then: MatchState, seat: Audience, now: MatchState, names: Names | None = None) -> dict[str, Any]:
    """The match as it stood at an earlier version (``then``), as ``seat`` may see it ``now``
    (its players named as ``names`` says today: a replay shows a rename, and never an erased name).

    Both hands show once the match is finished: a replay of a won match hides nothing.
    """
    return view(then, seat, reveal=now.status is Status.FINISHED, names=names)


def _by_seat(pair: tuple) -> dict[str, Any]:
    return {"A": pair[0], "B": pair[1]}


def _trick(trick: Trick) -> dict[str, Any]:
    return {
        "leader": trick.leader.value,
        "cards": _by_seat(trick.cards),
        "winner": trick.winner.value if trick.winner else None,
        "spoiled": trick.spoiled,
    }


def _round(rnd: RoundState, seat: Audience, reveal: bool) -> dict[str, Any]:
    pending = rnd.pending
    shown: dict[str, Any] = {
        "number": rnd.number,
        "dealer": rnd.dealer.value,
        "value": rnd.value,
        "pending": None if pending is None else {
            "type": pending.kind.value, "by": pending.by.value, "value": pending.value,
        },
        "remainder_round": rnd.remainder_round,
        "turn": rnd.turn.value,
        "tricks": [_trick(t) for t in rnd.tricks],
        "cards_left": _by_seat(tuple(len(hand) for hand in rnd.hands)),
    }
    if seat is not None:
        shown["hand"] = list(rnd.hand(seat))
    if reveal:
        shown["hands"] = {s.value: list(rnd.hand(s)) for s in SEATS}
    return shown


def _last_round(summary: RoundSummary) -> dict[str, Any]:
    return {
        "number": summary.number,
        "dealer": summary.dealer.value,
        "value": summary.value,
        "winner": summary.winner.value if summary.winner else None,
        "points": summary.points,
        "reason": summary.reason.value,
        "tricks": [_trick(t) for t in summary.tricks],
    }


@dataclass(frozen=True)
class Table:
    """What the table has shown by some version: the cards played in each round, and whether
    the match is over. The state forgets earlier rounds' cards; what they showed stays shown."""

    round: int = 0  # the round under way; 0 before the first deal of the events folded
    played: frozenset[tuple[int, str]] = frozenset()  # (round, card) for each card played
    finished: bool = False


def table_of(events: Iterable[Event], table: Table = Table()) -> Table:
    """What ``events`` (oldest first) show, from ``table`` on."""
    played, finished, number = set(table.played), table.finished, table.round
    for number, event in _in_rounds(events, table.round):  # one Table at the end: replays fold here
        if type(event) is CardPlayed:
            played.add((number, event.card))
        elif type(event) is MatchWon:
            finished = True
    return Table(number, frozenset(played), finished)


def shown(event: Event, audience: Audience, table: Table, round_number: int) -> Event:
    """``event`` as ``audience`` may see it once the table shows ``table``: the same event,
    each card it may not see replaced by None. ``round_number``: the round it belongs to
    (a deal names its own)."""
    if table.finished:
        return event
    hide = _HIDE.get(type(event))
    return event if hide is None else hide(event, audience, table, round_number)


def shown_events(events: Sequence[Event], audience: Audience, finished: bool = False) -> list[Event]:
    """``events`` (oldest first, up to now) as ``audience`` may see them after the last.

    Events that start mid-match (an action's own) count the round under way as round 0:
    the only cards they can hide are those of a deal or redeal among them. ``finished``:
    the match is over (known from elsewhere when ``events`` stop before its end).
    """
    now = table_of(events)
    if finished:
        now = Table(now.round, now.played, True)
    return [shown(event, audience, now, number) for number, event in _in_rounds(events, 0)]


def _in_rounds(events: Iterable[Event], number: int) -> Iterator[tuple[int, Event]]:
    """Each event with the round it belongs to (a deal opens its own), from round ``number``."""
    for event in events:
        if type(event) is RoundDealt:
            number = event.round
        yield number, event


def _only(cards: tuple[str, ...], number: int, table: Table) -> Cards:
    """``cards`` of round ``number`` with those not yet played to the table hidden."""
    played = table.played
    return tuple([card if (number, card) in played else None for card in cards])


def _hands(hands: Hands, audience: Audience, number: int, table: Table) -> tuple[Cards, Cards]:
    """Each seat's cards: all of the audience's own, the played ones of the other seat's."""
    a, b = (cards if seat is audience else _only(cards, number, table) for seat, cards in zip(SEATS, hands))
    return a, b


def _dealt(event: RoundDealt, audience: Audience, table: Table, number: int) -> RoundDealt:
    hands = _hands(event.hands, audience, event.round, table)
    return copy_with(event, hands=hands, stock=_only(event.stock, event.round, table))


def _redealt(event: RedealAccepted, audience: Audience, table: Table, number: int) -> RedealAccepted:
    return copy_with(event, hands=_hands(event.hands, audience, number, table))


def _created(event: MatchCreated, audience: Audience, table: Table, number: int) -> MatchCreated:
    # A fixture deck per round (1, 2, ...): each shows its round's played cards only.
    return copy_with(event, decks=tuple(_only(deck, n, table) for n, deck in enumerate(event.decks, 1)))


_HIDE: dict[type[Event], Callable[[Any, Audience, Table, int], Event]] = {
    RoundDealt: _dealt,
    RedealAccepted: _redealt,
    MatchCreated: _created,
}
