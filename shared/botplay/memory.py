"""What a seat learns of its opponent over one match: how often it folds when asked.

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
"""
from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, replace

from shared.rules import DECK, strength

from .zoo import Action, View

PRIOR_ASKS, PRIOR_FOLDS = 6, 1  # as if one of the first six questions had been refused
QUESTIONS = ("raise", "remainder")  # a seat's actions that ask the opponent to answer
REFUSED = ("raise_rejected", "remainder_rejected")  # how a round ends on a refused question


@dataclass(frozen=True)
class Record:
    """The opponent's answers to this seat's questions, so far this match."""

    asked: int = 0
    folded: int = 0

    def fold_rate(self) -> float:
        return (self.folded + PRIOR_FOLDS) / (self.asked + PRIOR_ASKS)

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
        """Read the answer to the seat's last question from ``view``, the next it decides on
        (learning twice from one view learns once)."""
        if self.asked_in is None:
            return
        rnd, last = view.get("round"), view.get("last_round")
        if rnd is not None and rnd["number"] == self.asked_in:
            self.record = replace(self.record, asked=self.record.asked + 1)
        elif last is not None and last["number"] == self.asked_in:
            refused = last["reason"] in REFUSED and last["winner"] == view["you"]
            self.record = Record(self.record.asked + 1, self.record.folded + refused)
        self.asked_in = None  # otherwise a round ended unseen: the answer is unknown

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
