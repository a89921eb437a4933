"""``legal_actions`` walks ``check.permitted`` once per seat; ``decide`` refuses by
``check.refusal``. On every state of many random matches (every variant, clocks run out,
resignations) both say the same of every candidate command of both seats."""
import random

import pytest

from shared.rules import (
    DECK,
    INITIAL,
    SEATS,
    Accept,
    Cancel,
    CreateMatch,
    DeclareRemainder,
    Fold,
    PlayCard,
    ProposeRedeal,
    Raise,
    Reject,
    Resign,
    Rules,
    legal_actions,
    step,
)
from shared.rules.check import listed, refusal
from shared.rules.playthrough import play_random_match

KINDS = (Raise, DeclareRemainder, Accept, Reject, Fold, ProposeRedeal, Resign, Cancel)


def by_refusal(state, seat):
    """The legal actions as ``decide`` judges them: every candidate it does not refuse."""
    cards = state.round.hand(seat) if state.round is not None else ()
    candidates = [PlayCard(seat, card) for card in cards] + [kind(seat) for kind in KINDS]
    return [command for command in candidates if refusal(state, command) is None]


def _rules(rng: random.Random) -> Rules:
    return Rules.from_mapping({
        "raise_ladder": rng.choice(["seed", "even"]), "alternate_requests": rng.random() < 0.7,
        "redeal_proposer": rng.choice(["either", "non_dealer"]), "redeals_per_round": rng.choice([0, 1]),
        "target": rng.choice([3, 12]), "remainder_reject": rng.choice(["match", "previous_value"]),
    })


@pytest.mark.parametrize("seed", range(0, 400, 50))
def test_the_fast_list_is_the_refusals_list_on_every_state(seed):
    checked = 0

    def compare(before, command, events, after):
        nonlocal checked
        for state in (before, after):
            for seat in SEATS:
                assert legal_actions(state, seat) == by_refusal(state, seat)
                checked += 1

    for offset in range(50):
        rng = random.Random(seed + offset)
        play_random_match(rng, _rules(rng), on_step=compare, timeout_rate=0.02, resign_weight=0.002)
    assert checked > 1000


@pytest.mark.parametrize("seed", range(0, 400, 100))
def test_the_quick_yes_is_given_to_exactly_the_commands_refusal_lets_through(seed):
    """``decide`` asks ``refusal`` only of what ``listed`` does not list: it must list no
    command that ``refusal`` would refuse (nor leave out one it lets through)."""
    checked = 0

    def compare(before, command, events, after):
        nonlocal checked
        for state in (before, after):
            for seat in SEATS:
                cards = state.round.hand(seat) if state.round is not None else ()
                others = [c for c in DECK if c not in cards][:2]  # cards it does not hold
                for candidate in [PlayCard(seat, card) for card in (*cards, *others)] + [kind(seat) for kind in KINDS]:
                    assert listed(state, candidate) == (refusal(state, candidate) is None), candidate
                    checked += 1

    for offset in range(25):
        rng = random.Random(seed + offset)
        play_random_match(rng, _rules(rng), on_step=compare, timeout_rate=0.02, resign_weight=0.002)
    assert checked > 10_000


def test_the_quick_yes_before_while_waiting_and_once_cancelled():
    waiting = step(INITIAL, CreateMatch("m", "p1"), random.Random(1)).state
    cancelled = step(waiting, Cancel(SEATS[0])).state
    for state in (INITIAL, waiting, cancelled):
        for seat in SEATS:
            for candidate in [PlayCard(seat, DECK[0])] + [kind(seat) for kind in KINDS]:
                assert listed(state, candidate) == (refusal(state, candidate) is None), (state.status, candidate)
    assert listed(waiting, Cancel(SEATS[0])) and not listed(waiting, Cancel(SEATS[1]))


def test_before_and_while_waiting():
    waiting = step(INITIAL, CreateMatch("m", "p1"), random.Random(1)).state
    for state in (INITIAL, waiting):
        for seat in SEATS:
            assert legal_actions(state, seat) == by_refusal(state, seat)
    assert [type(a) for a in legal_actions(waiting, SEATS[0])] == [Cancel]
