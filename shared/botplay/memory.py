"""What a seat learns of its opponent over one match: how often it folds when asked, how often
it asks, and what it did in the round under way.

A search that lets the opponent answer a raise as the tree finds best for it, whatever its
cards, values a bluff against every opponent alike; and a player who accepts every raise
never folds to one. So a seat keeps, per match, the answers its own questions (raises and
remainders) got, and the search has the opponent answer as that record says: it folds the
weakest of its hands, as large a share of them as it has folded of the questions so far
(a prior of one fold in six counts before any evidence: a lower one lost fewer matches
to the players who call everything and no more to those who fold, docs/bot.md).

The record is read from the seat's own views only: after a question, the next view the seat
decides on is in the same round (the question was accepted, or answered with a raise) or
shows the round's end (``last_round``: rejected, or played out). Nothing else is needed, so
a decision made in another process is handed the record with its view.

A reading search (the expert) also weighs its deals by the record: a question the opponent put
this round is read as cards among its strongest, as large a share as the rounds in which it
asks (a prior of two in six), and an accepted question as cards above its folding share.
"""
from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, replace

from shared.rules import DECK, strength

from .zoo import Action, View

PRIOR_ASKS, PRIOR_FOLDS = 6, 1  # as if one of the first six questions had been refused
PRIOR_ROUNDS, PRIOR_RAISED = 6, 2  # as if the opponent had asked in two of the first six rounds
BLUFFS = 0.2  # how much likelier a deal that fits the opponent's questions and answers is than one that does not
QUESTIONS = ("raise", "remainder")  # a seat's actions that ask the opponent to answer
REFUSED = ("raise_rejected", "remainder_rejected")  # how a round ends on a refused question


@dataclass(frozen=True)
class Record:
    """The opponent's answers to this seat's questions, so far this match."""

    asked: int = 0
    folded: int = 0
    rounds: int = 0  # rounds over, and those in which the opponent asked this seat a question
    raised: int = 0
    round: int = 0  # the round under way, and what the opponent did in it so far
    raising: bool = False  # asked this seat a question
    accepting: bool = False  # accepted a question of this seat's

    def fold_rate(self) -> float:
        return (self.folded + PRIOR_FOLDS) / (self.asked + PRIOR_ASKS)

    def raise_rate(self) -> float:
        return (self.raised + PRIOR_RAISED) / (self.rounds + PRIOR_ROUNDS)

    def fits(self, round_hand: tuple[str, ...]) -> bool:
        """Could the opponent have played this round as it did, holding ``round_hand`` (its cards
        as dealt)? Asking is read as a hand among its strongest, as large a share as the rounds in
        which it asks; accepting as one above its folding share."""
        if not round_hand:
            return True
        if self.raising and power(round_hand) < _threshold(len(round_hand), round(1 - self.raise_rate(), 2)):
            return False
        return not self.accepting or self.accepts(round_hand)

    def accepts(self, hand: tuple[str, ...]) -> bool:
        """Does the opponent holding ``hand`` accept a question (all but its weakest hands, as
        large a share as it has been seen to fold)?"""
        return not hand or power(hand) >= _threshold(len(hand), round(self.fold_rate(), 2))


NO_EVIDENCE = Record()


@dataclass
class Memory:
    """One seat's record of one match, and the question of its that awaits an answer."""

    record: Record = NO_EVIDENCE
    asked_in: int | None = None  # the round of the seat's last question, until its answer is seen

    def learn(self, view: View) -> None:
        """Read from ``view``, the next the seat decides on, the answer to its last question and
        whether the opponent is asking (learning twice from one view learns once)."""
        rnd, last = view.get("round"), view.get("last_round")
        if rnd is not None and rnd["number"] != self.record.round:
            self._next_round(rnd["number"])
        self._answered(view, rnd, last)
        if rnd is None:
            return
        pending = rnd["pending"]
        if pending is not None and pending["by"] != view["you"] and pending["type"] in QUESTIONS:
            self.record = replace(self.record, raising=True)

    def _answered(self, view: View, rnd: dict | None, last: dict | None) -> None:
        if self.asked_in is None:
            return
        record = self.record
        if rnd is not None and rnd["number"] == self.asked_in:
            self.record = replace(record, asked=record.asked + 1, accepting=True)
        elif last is not None and last["number"] == self.asked_in:
            refused = last["reason"] in REFUSED and last["winner"] == view["you"]
            self.record = replace(record, asked=record.asked + 1, folded=record.folded + refused)
        self.asked_in = None  # otherwise a round ended unseen: the answer is unknown

    def _next_round(self, number: int) -> None:
        record = self.record
        seen = record.round > 0  # the round before, if this seat decided in one
        self.record = replace(record, rounds=record.rounds + seen, raised=record.raised + record.raising,
                              round=number, raising=False, accepting=False)

    def acted(self, view: View, action: Action) -> None:
        if action["type"] in QUESTIONS:
            self.asked_in = view["round"]["number"]


def power(hand: tuple[str, ...]) -> float:
    """A hand's mean card strength (what the playouts' answers weigh too)."""
    return sum(strength(card) for card in hand) / len(hand)


@functools.lru_cache(maxsize=512)
def _threshold(cards: int, share: float) -> float:
    """The power below which ``share`` of all hands of ``cards`` cards fall."""
    powers = _powers(cards)
    return powers[min(len(powers) - 1, int(share * len(powers)))]


@functools.lru_cache(maxsize=8)
def _powers(cards: int) -> tuple[float, ...]:
    return tuple(sorted(power(hand) for hand in itertools.combinations(DECK, cards)))
