"""Given-events / when-command / then-events helpers for rules tests.

Time is given too: ``run_at`` records steps at a time (epoch ms), as a stored event's
time, so the state carries its clock; ``T0`` is when the time tests deal round 1.
"""
from __future__ import annotations

import random

from shared.rules import (
    DECK,
    Accept,
    Cancel,
    CreateMatch,
    DeclareRemainder,
    Fold,
    JoinMatch,
    MatchState,
    PlayCard,
    ProposeRedeal,
    Raise,
    Reject,
    Resign,
    Rules,
    Seat,
    TimeOut,
    clocked,
    decide,
    replay,
)
from shared.rules.commands import PlayerAction
from shared.rules.events import Event

_WORDS = {
    "raise": Raise, "remainder": DeclareRemainder, "accept": Accept, "reject": Reject,
    "fold": Fold, "propose_redeal": ProposeRedeal, "resign": Resign, "cancel": Cancel,
}


def deck_for(dealer_hand: str, non_dealer_hand: str, top: str = "") -> tuple[str, ...]:
    """A deck order that deals these hands (R6: N gets c1 c3 c5, D c2 c4 c6); ``top`` follows them."""
    n, d = non_dealer_hand.split(), dealer_hand.split()
    head = [card for pair in zip(n, d) for card in pair] + top.split()
    return tuple(head) + tuple(card for card in DECK if card not in head)


def started_events(
    a: str, b: str, dealer: Seat = Seat.B, scores: tuple[int, int] = (0, 0),
    rules: Rules = Rules(), top: str = "", later_decks: tuple = (),
) -> list[Event]:
    """The events of a match whose round 1 deals ``a`` to seat A and ``b`` to seat B."""
    hands = {Seat.A: a, Seat.B: b}
    deck = deck_for(hands[dealer], hands[dealer.other], top)
    create = CreateMatch("m1", "p-a", rules, dealer, scores, (deck, *later_decks))
    created = decide(MatchState(), create)
    return created + decide(replay(created), JoinMatch("p-b"))


def started(a: str, b: str, **options) -> MatchState:
    """The state of ``started_events``."""
    return replay(started_events(a, b, **options))


def command(text: str) -> PlayerAction:
    """``"A 7H"`` plays a card; ``"B raise"`` and the like name any other action."""
    seat_text, word = text.split()
    seat = Seat(seat_text)
    return _WORDS[word](seat) if word in _WORDS else PlayCard(seat, word)


def run(state: MatchState, *steps: str, rng: random.Random | None = None) -> tuple[MatchState, list[Event]]:
    """Apply the steps in order; returns the final state and every event recorded."""
    recorded: list[Event] = []
    for step in steps:
        events = decide(state, command(step), rng or random.Random(0))
        recorded += events
        state = replay(events, state)
    return state, recorded


def when(state: MatchState, step: str, rng: random.Random | None = None) -> list[Event]:
    """The events one command records."""
    return decide(state, command(step), rng or random.Random(0))


T0 = 1_700_000_000_000  # when the time tests' round 1 is dealt (epoch ms)
MINUTE = 60_000  # the default turn_seconds, in ms


def run_at(state: MatchState, at_ms: int, *steps: str) -> tuple[MatchState, list[Event]]:
    """``run``, each step recorded at ``at_ms``: the state's clock runs from then."""
    state, recorded = run(state, *steps)
    return clocked(state, at_ms), recorded


def time_out(state: MatchState, seat: Seat, now_ms: int) -> list[Event]:
    """The events the service's timeout of ``seat`` at ``now_ms`` records."""
    return decide(state, TimeOut(seat, now_ms), random.Random(0))


def timed_out(state: MatchState, seat: Seat, now_ms: int) -> MatchState:
    """The state after that timeout, recorded at ``now_ms``."""
    return clocked(replay(time_out(state, seat, now_ms), state), now_ms)


def waiting_at(at_ms: int) -> MatchState:
    """A match created at ``at_ms`` by alice (seat A), waiting for its second player."""
    return clocked(replay(decide(MatchState(), CreateMatch("m1", "p-a", Rules(), Seat.B))), at_ms)
