"""Seeded random matches played through legal_actions, with seats that let the clock run out
and resign now and then, checking the engine's invariants."""
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shared.rules import (
    ACTIONS,
    DECK,
    SEATS,
    Ending,
    PlayCard,
    RuleCode,
    RuleError,
    Rules,
    Seat,
    TimeOut,
    WinReason,
    clocked,
    command_for,
    deadline,
    decide,
    iso_utc,
    legal_actions,
    owes,
    replay,
    view,
)
from shared.rules.events import MatchWon, TurnTimedOut
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
        "turn_seconds": st.integers(5, 604_800),
    }),
)


def _round_cards(round_state) -> list[str]:
    played = [card for trick in round_state.tricks for card in trick.cards if card]
    return [*round_state.hands[0], *round_state.hands[1], *round_state.stock, *round_state.discarded, *played]


def _check_step(before, action, events, after, rng):
    _check_refusals(before, rng)
    if isinstance(action, TimeOut):
        _check_timeout(before, action, events)
    else:
        assert action in legal_actions(before, action.seat)
    # Scores never fall.
    assert all(b >= a for a, b in zip(before.scores, after.scores))
    if after.round is not None:
        cards = _round_cards(after.round)
        assert len(cards) == len(set(cards)) == 32 and set(cards) == set(DECK)
        _check_views(after)
        # R28: every event restarts the clock of the seat that owes.
        assert deadline(after) == after.at + after.rules.turn_seconds * 1000


def _check_refusals(before, rng):
    """Everything not listed by legal_actions is refused; everything listed is accepted."""
    for seat in SEATS:
        legal = set(legal_actions(before, seat))
        cards = set(rng.sample(DECK, 4)) | set(before.round.hands[0] + before.round.hands[1]) if before.round else set()
        candidates = {command_for(seat, {"type": kind}) for kind in ACTIONS if kind != "play"}
        candidates |= {PlayCard(seat, card) for card in cards | {"ZZ"}}
        for command in candidates - legal:
            with pytest.raises(RuleError):
                decide(before, command, rng)


def _check_timeout(before, action, events):
    """R29-R30: due exactly from the deadline of the seat that owes; abandoned the second time in a row."""
    seat, due = action.seat, deadline(before)
    assert seat is owes(before) and action.now_ms == due
    for early in (TimeOut(seat, due - 1), TimeOut(seat.other, due)):
        with pytest.raises(RuleError) as refused:
            decide(before, early)
        assert refused.value.code is RuleCode.NOT_DUE
    assert events[0] == TurnTimedOut(seat, due)
    if before.timeouts[seat.index]:
        assert events[1:] == [MatchWon(seat.other, before.scores, events[1].seed, WinReason.ABANDONED)]
    else:
        assert events[1].seat is seat and not any(isinstance(e, MatchWon) and e.reason is not WinReason.SCORE
                                                  for e in events)


def _check_views(state):
    hands = state.round.hands
    stock = set(state.round.stock)
    for seat in (Seat.A, Seat.B, None):
        seen = view(state, seat)
        seen.pop("last_round")  # the previous round's played cards: public, and reshuffled since
        shown = json.dumps(seen)
        hidden = stock | (set(hands[0] + hands[1]) - (set(state.round.hand(seat)) if seat else set()))
        assert not [card for card in hidden if f'"{card}"' in shown]
        assert seen["clock"] == {
            "seat": owes(state).value, "deadline": iso_utc(deadline(state)), "turn_seconds": state.rules.turn_seconds,
        }


@settings(max_examples=500, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(
    seed=st.integers(0, 2**32 - 1), rules=rules_strategy,
    timeout_rate=st.sampled_from([0.0, 0.03, 0.3]), resign_weight=st.sampled_from([0.0, 0.003]),
)
def test_random_matches_keep_every_invariant(seed, rules, timeout_rate, resign_weight):
    rng = random.Random(seed)
    state, events = play_random_match(
        rng, rules, on_step=lambda before, action, recorded, after: _check_step(before, action, recorded, after, rng),
        timeout_rate=timeout_rate, resign_weight=resign_weight,
    )

    assert clocked(replay(events), state.at) == state
    assert state.winner is not None and view(state, None)["clock"] is None
    winners = [seat for seat in SEATS if state.score(seat) >= rules.target]
    if state.ended_by is Ending.SCORE:
        assert winners == [state.winner]
    elif state.ended_by is Ending.ROUND_CAP:  # R33
        assert state.rounds_dealt == rules.round_cap and winners == []
    else:  # R30, R31: the match ends with the scores as they stood; aborted before round 1 was complete
        assert state.ended_by in (Ending.RESIGNED, Ending.ABANDONED, Ending.ABORTED) and winners == []
        assert (state.ended_by is Ending.ABORTED) == (state.last_round is None)
    assert not any(legal_actions(state, seat) for seat in SEATS)
