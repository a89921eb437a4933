"""The longest match the rules allow: round after round that scores nothing and records the most.

Every round is dealt from one deck order whose two hands pair rank for rank (and so do the
hands of its redeal): the non-dealer proposes a redeal and the dealer accepts, then each
seat raises once a trick (the other accepts) and the follower plays the leader's rank, so
all three tricks are spoiled and the round is void (R20, R22). No score moves, so only
R33's round cap ends the match, and each round records some thirty events. For the replay
benchmark and the tests of a long match's fold.
"""
from __future__ import annotations

from dataclasses import dataclass

from .cards import DECK
from .commands import Accept, CreateMatch, JoinMatch, PlayCard, PlayerAction, ProposeRedeal, Raise
from .events import Event
from .legal import legal_actions
from .state import INITIAL, MatchState, Seat
from .step import step
from .variants import Rules

PAIRED = ("7H", "7S", "8H", "8S", "9H", "9S", "10H", "10S", "JH", "JS", "QH", "QS")
"""The deck's top: N gets 7H 8H 9H and D 7S 8S 9S (R6), then 10H JH QH and 10S JS QS (R8)."""


@dataclass(frozen=True)
class PairedChance:
    """Deals the paired deck every round (a Chance with nothing to commit to or reveal)."""

    deck_order: tuple[str, ...]

    def deck(self, round_number: int) -> tuple[str, ...]:
        return self.deck_order

    def first_dealer(self) -> Seat:
        return Seat.B

    @property
    def commitment(self) -> str | None:
        return None

    def reveal(self) -> str | None:
        return None


def paired_deck() -> tuple[str, ...]:
    """A whole deck whose top pairs rank for rank (:data:`PAIRED`), the rest in any order."""
    return PAIRED + tuple(card for card in DECK if card not in PAIRED)


WEEK = 604_800  # the longest turn clock (R28): a stored match is not timed out while it is read


def void_match(match_id: str, rounds: int, target: int = 100) -> list[Event]:
    """Every event of a match that plays ``rounds`` void rounds and deals the next (fewer if
    the match ends first: R33's cap ends it after ``4 × target`` rounds)."""
    chance = PairedChance(paired_deck())
    state, recorded = INITIAL, []
    rules = Rules(target=target, turn_seconds=WEEK)
    for command in (CreateMatch(match_id, "p1", rules, Seat.B), JoinMatch("p2")):
        state, events = step(state, command, chance)
        recorded += events
    while not state.status.over and state.rounds_dealt <= rounds:  # the last void round deals the next one
        state, events = step(state, _next(state), chance)
        recorded += events
    return recorded


def _next(state: MatchState) -> PlayerAction:
    """The one move of a void round the match waits for."""
    rnd = state.round
    assert rnd is not None
    if rnd.pending is not None:
        return Accept(rnd.pending.by.other)
    if rnd.redeal_open and not rnd.tricks and not rnd.discarded:
        return ProposeRedeal(rnd.non_dealer)
    seat = rnd.turn
    if not rnd.requested_this_turn and Raise(seat) in legal_actions(state, seat):
        return Raise(seat)
    hand = rnd.hand(seat)
    trick = rnd.tricks[-1] if rnd.tricks and not rnd.tricks[-1].complete else None
    led = None if trick is None else trick.cards[trick.leader.index]
    card = hand[0] if led is None else next(c for c in hand if c[:-1] == led[:-1])
    return PlayCard(seat, card)
