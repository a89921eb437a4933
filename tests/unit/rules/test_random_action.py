"""``random_action`` draws as ``random.choices`` would among the weighted legal actions (it
does the same draw by hand), so seeded matches, goldens and duels keep their moves."""
import random

import pytest

from shared.rules import SEATS, DeclareRemainder, Fold, Resign, legal_actions
from shared.rules.playthrough import play_random_match, random_action


def by_choices(state, rng, rare_weight, resign_weight):
    """The draw spelled out with ``random.choices``, resignations left out when weightless."""
    actions = legal_actions(state, SEATS[0]) + legal_actions(state, SEATS[1])
    if not resign_weight:
        actions = [action for action in actions if type(action) is not Resign]
    weights = [resign_weight if type(action) is Resign else rare_weight if type(action) in (Fold, DeclareRemainder)
               else 1.0 for action in actions]
    return rng.choices(actions, weights)[0]


@pytest.mark.parametrize(("rare_weight", "resign_weight"), [(0.04, 0.0), (0.0, 0.0), (0.3, 0.05)])
def test_random_action_draws_what_random_choices_draws(rare_weight, resign_weight):
    states = []
    for seed in range(40):
        play_random_match(random.Random(seed), resign_weight=0.002,
                          on_step=lambda before, command, events, after: states.append(before))
    for index, state in enumerate(states):
        ours, theirs = random.Random(index), random.Random(index)
        assert random_action(state, ours, rare_weight, resign_weight) == by_choices(
            state, theirs, rare_weight, resign_weight)
        assert ours.random() == theirs.random()  # the same draws taken from the stream
