"""Bot strategies pick only legal actions, from their own view, exactly when they must act."""
import random

import pytest

from services.bots.strategies import STRATEGIES, heuristic_strategy, needs_me
from shared.rules import SEATS, Status, command_for, decide, strength, view
from shared.rules.playthrough import play_random_match


def states(seed: int):
    """Every state of a random match."""
    seen = []
    play_random_match(random.Random(seed), on_step=lambda before, action, events, after: seen.append(after))
    return [s for s in seen if s.status is Status.PLAYING and s.round is not None]


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_a_strategy_acts_legally_exactly_when_it_must(name):
    strategy = STRATEGIES[name](random.Random(1))
    for seed in range(8):
        for state in states(seed):
            for seat in SEATS:
                shown = view(state, seat)
                action = strategy(shown)
                assert (action is not None) == needs_me(shown)
                if action is not None:
                    assert action in shown["legal_actions"]
                    decide(state, command_for(seat, action), random.Random(0))  # accepted


def test_the_heuristic_takes_a_trick_with_its_cheapest_winning_card():
    for state in states(3):
        rnd = state.round
        if rnd.pending or not rnd.tricks or rnd.tricks[-1].complete:
            continue
        seat = rnd.turn
        shown = view(state, seat)
        led = next(card for card in rnd.tricks[-1].cards if card)
        action = heuristic_strategy(shown)
        if action["type"] != "play":
            continue
        winners = [c for c in rnd.hand(seat) if strength(c) > strength(led)]
        if winners:
            assert action["card"] == min(winners, key=strength)
            return
    pytest.fail("no follower position found in the match")



@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_a_bot_never_resigns_though_resigning_is_always_legal(name):
    strategy = STRATEGIES[name](random.Random(2))
    for state in states(5):
        for seat in SEATS:
            shown = view(state, seat)
            assert {"type": "resign"} in shown["legal_actions"]
            assert (strategy(shown) or {}).get("type") != "resign"
