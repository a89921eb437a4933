"""Seeded random matches played through legal_actions, checking the engine's invariants."""
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shared.rules import (
    ACTIONS,
    DECK,
    SEATS,
    PlayCard,
    RuleError,
    Rules,
    Seat,
    command_for,
    decide,
    legal_actions,
    replay,
    view,
)
from shared.rules.playthrough import play_random_match

rules_strategy = st.builds(
    Rules.from_mapping,
    st.fixed_dictionaries({}, optional={
        "raise_ladder": st.sampled_from(["seed", "even"]),
        "remainder_reject": st.sampled_from(["match", "previous_value"]),
        "alternate_requests": st.booleans(),
        "redeal_proposer": st.sampled_from(["either", "non_dealer"]),
        "redeals_per_round": st.sampled_from([0, 1]),
        "target": st.integers(1, 21),
    }),
)


def _round_cards(round_state) -> list[str]:
    played = [card for trick in round_state.tricks for card in trick.cards if card]
    return [*round_state.hands[0], *round_state.hands[1], *round_state.stock, *round_state.discarded, *played]


def _check_step(before, action, events, after, rng):
    # Everything not listed by legal_actions is refused; everything listed is accepted.
    for seat in SEATS:
        legal = set(legal_actions(before, seat))
        cards = set(rng.sample(DECK, 4)) | set(before.round.hands[0] + before.round.hands[1]) if before.round else set()
        candidates = {command_for(seat, {"type": kind}) for kind in ACTIONS if kind != "play"}
        candidates |= {PlayCard(seat, card) for card in cards | {"ZZ"}}
        for command in candidates - legal:
            with pytest.raises(RuleError):
                decide(before, command, rng)
    assert action in legal_actions(before, action.seat)
    # Scores never fall.
    assert all(b >= a for a, b in zip(before.scores, after.scores))
    if after.round is not None:
        cards = _round_cards(after.round)
        assert len(cards) == len(set(cards)) == 32 and set(cards) == set(DECK)
        _check_views(after)


def _check_views(state):
    hands = state.round.hands
    stock = set(state.round.stock)
    for seat in (Seat.A, Seat.B, None):
        seen = view(state, seat)
        seen.pop("last_round")  # the previous round's played cards: public, and reshuffled since
        shown = json.dumps(seen)
        hidden = stock | (set(hands[0] + hands[1]) - (set(state.round.hand(seat)) if seat else set()))
        assert not [card for card in hidden if f'"{card}"' in shown]


@settings(max_examples=500, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), rules=rules_strategy)
def test_random_matches_keep_every_invariant(seed, rules):
    rng = random.Random(seed)
    state, events = play_random_match(
        rng, rules, on_step=lambda before, action, recorded, after: _check_step(before, action, recorded, after, rng),
    )

    assert replay(events) == state
    assert state.winner is not None
    winners = [seat for seat in SEATS if state.score(seat) >= rules.target]
    assert winners == [state.winner]
    assert not any(legal_actions(state, seat) for seat in SEATS)
