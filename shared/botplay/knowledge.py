"""What one seat knows, and the deals consistent with it.

A seat's view shows its own hand, the cards played this round, the scores, the pending
question and its own legal actions; never the opponent's hand or the stock. ``Knowledge``
reads a view once; ``sample`` then draws a whole match state the engine can step: the
opponent's hand and the stock drawn uniformly from the cards this seat has not seen, the
entitlements the view leaves implicit (who made the last accepted request, whether the
seat on turn has used its request) inferred from the legal actions it does show.

Nothing here reads another seat's view or the store: a determinization is a guess made
from one view, so two views alike give the same guesses whatever the hidden cards are.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from shared.rules import DECK, MatchState, QuestionKind, Rules, Seat, Status
from shared.rules.state import Player, Question, RoundState, Trick, copy_with

View = dict[str, Any]


@dataclass(frozen=True)
class Knowledge:
    """One view, read for sampling: the public state without the hidden cards."""

    me: Seat
    template: MatchState  # the state with the opponent's hand and the stock still empty
    unseen: tuple[str, ...]  # cards neither in my hand nor played this round, in deck order
    their_cards: int  # how many the opponent holds

    def sample(self, rng: random.Random) -> MatchState:
        """A full state consistent with the view: hidden cards dealt uniformly at random."""
        cards = list(self.unseen)
        rng.shuffle(cards)
        theirs, stock = tuple(cards[:self.their_cards]), tuple(cards[self.their_cards:])
        rnd = self.template.round
        mine = rnd.hands[self.me.index]
        hands = (mine, theirs) if self.me is Seat.A else (theirs, mine)
        return copy_with(self.template, round=copy_with(rnd, hands=hands, stock=stock))


def read(view: View) -> Knowledge:
    """The knowledge in ``view``, a seat's view of a playing match with a round under way."""
    me = Seat(view["you"])
    shown = view["round"]
    tricks = tuple(_trick(t) for t in shown["tricks"])
    played = {card for trick in tricks for card in trick.cards if card}
    hand = tuple(shown["hand"])
    unseen = tuple(card for card in DECK if card not in played and card not in hand)
    rules = Rules.from_mapping(view["rules"])
    hands = (hand, ()) if me is Seat.A else ((), hand)
    rnd = RoundState(
        number=shown["number"], dealer=Seat(shown["dealer"]), hands=hands, stock=(), value=shown["value"],
        pending=_question(shown["pending"]), remainder_round=shown["remainder_round"], tricks=tricks,
        **_entitlements(view, me, rules),
    )
    scores = (view["scores"]["A"], view["scores"]["B"])
    template = MatchState(
        match_id="sampled", status=Status.PLAYING, rules=rules, players=(Player("a"), Player("b")),
        scores=scores, round=rnd, rounds_dealt=shown["number"], capped=True,
    )
    return Knowledge(me, template, unseen, shown["cards_left"][me.other.value])


def _trick(shown: dict[str, Any]) -> Trick:
    winner = shown["winner"]
    return Trick(
        leader=Seat(shown["leader"]), cards=(shown["cards"]["A"], shown["cards"]["B"]),
        winner=Seat(winner) if winner else None, spoiled=shown["spoiled"],
    )


def _question(pending: dict[str, Any] | None) -> Question | None:
    if pending is None:
        return None
    return Question(QuestionKind(pending["type"]), Seat(pending["by"]), pending["value"])


def _entitlements(view: View, me: Seat, rules: Rules) -> dict[str, Any]:
    """R8, R11: what the view implies of the request and redeal entitlements.

    Asked a request, the asker (on turn) has used its request, and the last accepted one, if
    any, was mine (R11-iii). On my turn, a raise I may not make means my request was the
    last accepted (or I made one this turn: the same, for what follows). Otherwise the
    last accepted request, if any, was the opponent's.
    """
    shown = view["round"]
    pending, raised = shown["pending"], shown["value"] > 1
    legal = {action["type"] for action in view["legal_actions"]}
    if pending is not None and pending["type"] == "redeal":
        return {"redeal_open": True}
    if pending is not None:
        return {"requested_this_turn": True, "redeal_open": False,
                "last_accepted_by": me if raised and rules.alternate_requests else None}
    may_request = "raise" in legal or shown["remainder_round"]
    last = None if not raised else (me.other if may_request else me)
    return {"requested_this_turn": not may_request, "last_accepted_by": last,
            "redeal_open": "propose_redeal" in legal}
