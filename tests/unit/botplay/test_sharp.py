"""A sharp search's players (the expert's): they stake the match on strong cards, and never
refuse a stake, where the plain search's players do neither."""
import random

from shared.botplay.search import NEVER, _odds, _playout_move
from shared.rules import Accept, DeclareRemainder, QuestionKind, Reject, legal_actions, owes
from tests.unit.botplay.test_knowledge import states

CAUTIOUS = 0.0, 0.99, True  # never raises, answers only on the strongest cards, plays with sense


def _on_turn():
    return [(state, owes(state)) for seed in range(8) for state in states(seed)
            if state.round.pending is None and "raise" in {a.action for a in legal_actions(state, owes(state))}]


def test_a_sharp_player_declares_its_remainder_exactly_on_strong_cards():
    declared = kept = 0
    for state, seat in _on_turn():
        hand = state.round.hand(seat)
        move = _playout_move(state, seat, (*CAUTIOUS, 0.7), random.Random(1))
        assert (type(move) is DeclareRemainder) is (_odds(state.round, seat, hand) > 0.7)
        assert type(_playout_move(state, seat, (*CAUTIOUS, NEVER), random.Random(1))) is not DeclareRemainder
        declared, kept = declared + (type(move) is DeclareRemainder), kept + (type(move) is not DeclareRemainder)
    assert declared and kept


def test_a_sharp_player_never_refuses_a_remainder_a_plain_one_may():
    staked = [state for seed in range(12) for state in states(seed)
              if state.round.pending is not None and state.round.pending.kind is QuestionKind.REMAINDER]
    assert staked
    for state in staked:
        seat = state.round.pending.by.other
        assert type(_playout_move(state, seat, (*CAUTIOUS, 0.7), random.Random(1))) is Accept
    assert any(type(_playout_move(state, state.round.pending.by.other, (*CAUTIOUS, NEVER), random.Random(1)))
               is Reject for state in staked)
