"""Levels: each picks a legal move exactly when the bot must act; a search stops at its cap
whatever its iterations (a clock that runs out answers at once), and the cap follows the
match clock: a fifth of the time left, so the move lands well inside turn_seconds."""
import random

import pytest

from services.bots.decisions import decide, level_of, seconds_allowed
from shared.botplay.levels import LEVELS, UnknownStrategyError, strategy_for
from shared.botplay.search import Budget, search_strategy
from shared.botplay.zoo import ZOO, needs_me
from shared.rules import SEATS, command_for, step, view
from tests.unit.botplay.test_knowledge import states


class SteppingClock:
    """A clock that moves ``tick`` seconds each time it is read: a machine as slow as one likes."""

    def __init__(self, tick: float) -> None:
        self.now, self.tick, self.reads = 0.0, tick, 0

    def __call__(self) -> float:
        self.now += self.tick
        self.reads += 1
        return self.now


@pytest.mark.parametrize("name", sorted(ZOO) + ["easy", "medium", "search:30", "pimc:36"])
def test_a_strategy_moves_legally_exactly_when_it_must(name):
    strategy = strategy_for(name, 1)
    for state in states(2)[::2]:
        for seat in SEATS:
            shown = view(state, seat)
            action = strategy(shown)
            assert (action is not None) == needs_me(shown)
            if action is not None:
                step(state, command_for(seat, action), random.Random(0))  # accepted by the engine


def test_a_search_stops_at_its_cap_however_slow_the_machine():
    clock = SteppingClock(tick=0.05)  # each read of the clock: 50 ms gone
    strategy = search_strategy(Budget(iterations=1_000_000, seconds=0.1), seed=1, clock=clock)
    asked = [(s, seat) for s in states(4) for seat in SEATS if needs_me(view(s, seat))]
    for state, seat in asked[:10]:
        clock.reads = 0
        assert strategy(view(state, seat)) in view(state, seat)["legal_actions"]
        assert clock.reads <= 4  # started, and at most a few checks: not a million iterations


def test_the_cap_is_a_fifth_of_the_time_left_and_never_more_than_the_level_gives():
    shown = {"rules": {"turn_seconds": 5}, "clock": {"deadline": "2026-01-01T00:00:05.000Z"}}
    start = 1767225600.0  # 2026-01-01T00:00:00Z
    assert seconds_allowed(shown, "hard", start) == pytest.approx(0.15)
    assert seconds_allowed(shown, "expert", start) == pytest.approx(1.0)  # 5 s left: a fifth
    assert seconds_allowed(shown, "expert", start + 4.5) == pytest.approx(0.1)  # late in the queue: less
    assert seconds_allowed(shown, "expert", start + 10) == pytest.approx(0.02)  # past it: the least
    assert seconds_allowed(shown, "medium", start) is None


def test_a_view_without_a_known_level_is_played_at_medium():
    assert level_of({}) == "medium" and level_of({"bot_level": "nonsense"}) == "medium"
    assert level_of({"bot_level": "hard"}) == "hard"


@pytest.mark.parametrize("level", LEVELS)
def test_the_pool_decides_each_level_legally(level):
    state = next(s for s in states(1) if s.round.pending is None)
    seat = state.round.turn
    shown = {**view(state, seat), "id": "m1", "version": 3, "bot_level": level}
    shown["rules"] = {**shown["rules"], "turn_seconds": 5}
    assert decide(shown) in shown["legal_actions"]


def test_an_unknown_name_is_refused():
    for name in ("grandmaster", "search:", "search:0", "search:x"):
        with pytest.raises(UnknownStrategyError):
            strategy_for(name)
