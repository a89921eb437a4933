"""Random full matches through ``legal_actions``: for property tests and the benchmark.

A match is played against a clock of its own: every recorded batch of events is a second
after the one before (well inside any ``turn_seconds``), unless the seat that owes lets
its deadline pass and the service's ``TimeOut`` is decided at that deadline.
"""
from __future__ import annotations

import random
from bisect import bisect
from collections.abc import Callable
from itertools import accumulate

from .chance import Chance, RandomChance
from .clock import deadline, owes
from .commands import CreateMatch, DeclareRemainder, Fold, JoinMatch, PlayerAction, Resign, TimeOut
from .events import Event
from .legal import legal_actions
from .state import INITIAL, SEATS, MatchState
from .step import step
from .variants import Rules

OnStep = Callable[[MatchState, PlayerAction | TimeOut, list[Event], MatchState], None]

START_MS = 1_700_000_000_000  # the match's creation time (epoch ms)
STEP_MS = 1_000  # time between one move and the next


def random_action(
    state: MatchState, rng: random.Random, rare_weight: float = 0.04, resign_weight: float = 0.0,
) -> PlayerAction:
    """Any legal action of either seat; folds and remainders are rare so matches run several rounds.

    Resignations are left out unless ``resign_weight`` gives them a weight (a resignation
    ends the match, so a typical weight is far below ``rare_weight``).
    """
    choices = legal_actions(state, SEATS[0]) + legal_actions(state, SEATS[1])
    weight_of = {Resign: resign_weight, Fold: rare_weight, DeclareRemainder: rare_weight}
    weights = [weight_of.get(type(action), 1.0) for action in choices]
    # ``random.choices``'s own draw without its checks (this is a benchmark's and the property
    # tests' inner loop): the same running sums and bisection, so the same action.
    running = list(accumulate(weights))
    if running[-1] <= 0:
        raise ValueError("no legal action has a weight")
    return choices[bisect(running, rng.random() * running[-1], 0, len(choices) - 1)]


def play_random_match(
    rng: random.Random, rules: Rules = Rules(), max_actions: int = 10_000, on_step: OnStep | None = None,
    chance: Chance | None = None, decks: tuple[tuple[str, ...], ...] = (),
    timeout_rate: float = 0.0, resign_weight: float = 0.0,
) -> tuple[MatchState, list[Event]]:
    """Create, join and play one match to its end; returns the final state and every event.

    ``rng`` picks the actions; deals come from ``decks`` (fixture deck orders for the first
    rounds), then from ``chance`` (default: ``rng`` too). ``timeout_rate``: the chance that
    the seat that owes lets its deadline pass instead of a move; ``resign_weight``: see
    :func:`random_action`. The final state carries its clock (``state.at``).
    """
    chance = chance or RandomChance(rng)
    now, state, recorded = START_MS, INITIAL, []
    for command in (CreateMatch("m", "p1", rules, decks=decks), JoinMatch("p2")):
        state, events = step(state, command, chance, now)
        recorded += events
    for _ in range(max_actions):
        if state.status.over:
            return state, recorded
        if timeout_rate and rng.random() < timeout_rate:
            now = deadline(state)
            command: PlayerAction | TimeOut = TimeOut(owes(state), now)
        else:
            now += STEP_MS
            command = random_action(state, rng, resign_weight=resign_weight)
        before = state
        state, events = step(state, command, chance, now)
        recorded += events
        if on_step is not None:
            on_step(before, command, events, state)
    raise RuntimeError(f"no winner after {max_actions} actions")
