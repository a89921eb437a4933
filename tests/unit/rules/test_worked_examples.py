"""RULES.md section 11, each example as given-events / when-command / then-events."""
import pytest

from shared.rules import RuleCode, RuleError, Seat, Status
from shared.rules import events as ev
from shared.rules.state import RoundEnd

from .given import deck_for, run, started, when

ROUND_2_DECK = deck_for("7S 7C 7D", "9H 9S 9D")  # dealer A in round 2


def test_example_1_round_decided_after_two_tricks_and_next_round_dealt_at_once():
    state, _ = run(started("7H 8S 9C", "AD KC 10H", later_decks=(ROUND_2_DECK,)), "A 7H", "B 10H", "A 8S")

    events = when(state, "B KC")

    assert events == [
        ev.CardPlayed(Seat.B, "KC"),
        ev.TrickWon(2, Seat.A),
        ev.RoundWon(1, Seat.A, 1, RoundEnd.TRICKS, (1, 0)),
        ev.RoundDealt(2, Seat.A, (("7S", "7C", "7D"), ("9H", "9S", "9D")), ROUND_2_DECK[6:]),
    ]
    state, _ = run(state, "B KC")
    with pytest.raises(RuleError) as refused:
        when(state, "A 9C")
    assert refused.value.code is RuleCode.NOT_YOUR_TURN


def test_example_2_spoiled_third_trick_goes_to_first_trick_winner():
    state, _ = run(started("KD 9S 8H", "QH AC 8C", scores=(3, 4)), "A KD", "B QH", "A 9S", "B AC", "B 8C")

    events = when(state, "A 8H")

    assert events[:3] == [
        ev.CardPlayed(Seat.A, "8H"), ev.TrickSpoiled(3), ev.RoundWon(1, Seat.A, 1, RoundEnd.TRICKS, (4, 4)),
    ]
    assert isinstance(events[3], ev.RoundDealt) and events[3].dealer is Seat.A


def test_example_3_both_players_raise_in_one_trick():
    state, recorded = run(started("9D KD 7D", "10H QH 8H"), "A raise", "B accept", "A 9D", "B raise", "A accept")
    assert state.round.value == 6
    assert recorded[-1] == ev.RaiseAccepted(Seat.A, 6)
    state, _ = run(state, "B 10H")
    with pytest.raises(RuleError) as refused:
        when(state, "B raise")
    assert refused.value.code is RuleCode.NOT_ENTITLED
    state, _ = run(state, "B QH", "A raise", "B accept", "A KD")
    assert state.round.value == 8
    with pytest.raises(RuleError) as refused:
        when(state, "A raise")
    assert refused.value.code is RuleCode.NOT_ENTITLED
    state, _ = run(state, "A 7D")

    events = when(state, "B 8H")

    assert events[1:3] == [ev.TrickWon(3, Seat.A), ev.RoundWon(1, Seat.A, 8, RoundEnd.TRICKS, (8, 0))]


def test_example_4_accepted_remainder_wins_the_match():
    state, _ = run(started("7C 8C KC", "JH QH AH", scores=(7, 3)), "A remainder", "B accept", "A 7C")
    with pytest.raises(RuleError) as refused:
        when(state, "B raise")
    assert refused.value.code is RuleCode.REMAINDER_ROUND
    state, _ = run(state, "B JH", "A 8C")

    events = when(state, "B QH")

    assert events == [
        ev.CardPlayed(Seat.B, "QH"), ev.TrickWon(2, Seat.A),
        ev.RoundWon(1, Seat.A, 5, RoundEnd.TRICKS, (12, 3)), ev.MatchWon(Seat.A, (12, 3)),
    ]
    state, _ = run(state, "B QH")
    assert state.status is Status.FINISHED and state.scores == (12, 3)
    with pytest.raises(RuleError) as refused:
        when(state, "B fold")
    assert refused.value.code is RuleCode.MATCH_OVER


def test_example_5_redeal_from_the_stock():
    state = started("9H 10H JH", "9S 10S JS", top="7H 7S 8H KS AH QS")
    state, _ = run(state, "A propose_redeal")
    with pytest.raises(RuleError) as refused:
        when(state, "A 9H")
    assert refused.value.code is RuleCode.QUESTION_PENDING

    events = when(state, "B accept")

    assert events == [ev.RedealAccepted(Seat.B, (("7H", "8H", "AH"), ("7S", "KS", "QS")))]
    state, _ = run(state, "B accept")
    assert len(state.round.stock) == 20
    for step, code in (("B propose_redeal", RuleCode.REDEAL_CLOSED), ("A 9H", RuleCode.CARD_NOT_IN_HAND)):
        with pytest.raises(RuleError) as refused:
            when(state, step)
        assert refused.value.code is code
    state, recorded = run(state, "A 7H", "B 7S", "A 8H", "B KS")
    assert recorded[2] == ev.TrickSpoiled(1)
    assert recorded[5:7] == [ev.TrickWon(2, Seat.A), ev.RoundWon(1, Seat.A, 1, RoundEnd.TRICKS, (1, 0))]
    assert state.round.dealer is Seat.A


def test_example_6_fold_while_a_raise_is_pending_equals_reject():
    state, _ = run(started("7H 8S 9C", "AD KC 10H", scores=(2, 3)), "A raise")

    assert when(state, "B fold")[:2] == [ev.Folded(Seat.B), ev.RoundWon(1, Seat.A, 1, RoundEnd.FOLD, (3, 3))]
    assert when(state, "A fold")[:2] == [ev.Folded(Seat.A), ev.RoundWon(1, Seat.B, 1, RoundEnd.FOLD, (2, 4))]
