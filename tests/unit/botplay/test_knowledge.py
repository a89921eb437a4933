"""A seat's knowledge: the deals it samples agree with everything its view shows, and the
search decides from the view alone (the same view, whatever the hidden cards, gives the
same decision for the same seed)."""
import random

import pytest

from shared.botplay.knowledge import read
from shared.botplay.pimc import pimc_action
from shared.botplay.search import Budget, best_action
from shared.botplay.zoo import needs_me
from shared.rules import DECK, SEATS, Status, view
from shared.rules.playthrough import play_random_match
from shared.rules.state import copy_with


def states(seed: int):
    seen = []
    play_random_match(random.Random(seed), on_step=lambda before, action, events, after: seen.append(after))
    return [s for s in seen if s.status is Status.PLAYING and s.round is not None]


def _asked(seed: int):
    """Every (state, seat) of a random match where the seat must act."""
    return [(state, seat) for state in states(seed) for seat in SEATS if needs_me(view(state, seat))]


@pytest.mark.parametrize("seed", range(6))
def test_every_sampled_deal_shows_the_seat_exactly_its_view(seed):
    rng = random.Random(seed)
    for state, seat in _asked(seed):
        shown = view(state, seat)
        knowledge = read(shown)
        for _ in range(3):
            sampled = knowledge.sample(rng)
            again = view(sampled, seat)
            for key in ("scores", "you", "legal_actions", "status"):
                assert again[key] == shown[key]
            assert again["round"] == shown["round"]
            other = seat.other
            assert len(sampled.round.hand(other)) == len(state.round.hand(other))
            dealt = sampled.round.hand(seat) + sampled.round.hand(other) + sampled.round.stock
            played = [c for t in sampled.round.tricks for c in t.cards if c]
            assert sorted(dealt + tuple(played)) == sorted(DECK)


def _hidden_swapped(state, seat, rng):
    """The same match as ``seat`` sees it, with the opponent's hand and the stock dealt anew."""
    rnd = state.round
    other = seat.other
    hidden = list(rnd.hand(other) + rnd.stock)
    rng.shuffle(hidden)
    theirs = tuple(hidden[:len(rnd.hand(other))])
    hands = (rnd.hands[0], theirs) if seat is SEATS[0] else (theirs, rnd.hands[1])
    return copy_with(state, round=copy_with(rnd, hands=hands, stock=tuple(hidden[len(theirs):])))


PLAIN, SHARP = Budget(iterations=60, seconds=60), Budget(iterations=60, seconds=60, sharp=True)


@pytest.mark.parametrize("decide, budget", [(best_action, PLAIN), (best_action, SHARP), (pimc_action, PLAIN)])
def test_the_search_never_peeks_the_same_view_gives_the_same_decision(decide, budget):
    rng, compared, differed = random.Random(5), 0, 0
    for seed in range(3):
        for state, seat in _asked(seed)[::3]:
            other_deal = _hidden_swapped(state, seat, rng)
            assert view(other_deal, seat) == view(state, seat)
            differed += other_deal.round.hand(seat.other) != state.round.hand(seat.other)
            decision = decide(view(state, seat), budget, seed=7)
            assert decide(view(other_deal, seat), budget, seed=7) == decision
            assert decision in view(state, seat)["legal_actions"]
            compared += 1
    assert compared > 20 and differed > 10
