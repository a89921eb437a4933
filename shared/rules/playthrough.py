"""Random full matches through ``legal_actions``: for property tests and the benchmark."""
from __future__ import annotations

import random
from collections.abc import Callable

from .chance import Chance, RandomChance
from .commands import CreateMatch, DeclareRemainder, Fold, JoinMatch, PlayerAction
from .decide import decide
from .events import Event
from .evolve import evolve
from .legal import legal_actions
from .state import INITIAL, SEATS, MatchState, Status
from .variants import Rules

Step = Callable[[MatchState, PlayerAction, list[Event], MatchState], None]


_RARE = (Fold, DeclareRemainder)


def random_action(state: MatchState, rng: random.Random, rare_weight: float = 0.04) -> PlayerAction:
    """Any legal action of either seat; folds and remainders are rare so matches run several rounds."""
    choices = [action for seat in SEATS for action in legal_actions(state, seat)]
    weights = [rare_weight if isinstance(action, _RARE) else 1.0 for action in choices]
    return rng.choices(choices, weights)[0]


def play_random_match(
    rng: random.Random, rules: Rules = Rules(), max_actions: int = 10_000, on_step: Step | None = None,
    chance: Chance | None = None, decks: tuple[tuple[str, ...], ...] = (),
) -> tuple[MatchState, list[Event]]:
    """Create, join and play one match to its end; returns the final state and every event.

    ``rng`` picks the actions; deals come from ``decks`` (fixture deck orders for the first
    rounds), then from ``chance`` (default: ``rng`` too).
    """
    chance = chance or RandomChance(rng)
    state, recorded = INITIAL, []
    for command in (CreateMatch("m", "p1", "alice", rules, decks=decks), JoinMatch("p2", "bob")):
        for event in decide(state, command, chance):
            state = evolve(state, event)
            recorded.append(event)
    for _ in range(max_actions):
        if state.status is Status.FINISHED:
            return state, recorded
        action = random_action(state, rng)
        events = decide(state, action, chance)
        before = state
        for event in events:
            state = evolve(state, event)
        recorded += events
        if on_step is not None:
            on_step(before, action, events, state)
    raise RuntimeError(f"no winner after {max_actions} actions")
