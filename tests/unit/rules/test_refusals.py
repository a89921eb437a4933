"""Every R27 code, its precedence, and that a refusal records nothing."""
import pytest

from shared.rules import JoinMatch, RuleCode, RuleError, decide

from .given import run, started, when


def refused(state, step) -> RuleCode:
    with pytest.raises(RuleError) as error:
        when(state, step)
    assert error.value.message  # a sentence for the player
    return error.value.code


def test_match_over_refuses_everything():
    state, _ = run(started("7C 8C KC", "JH QH AH", scores=(11, 0)), "B fold")
    assert state.winner is not None
    for step in ("A fold", "B 7C", "A raise", "B accept", "A propose_redeal"):
        assert refused(state, step) is RuleCode.MATCH_OVER


def test_not_started_before_the_second_seat_is_filled():
    state = started("7C 8C KC", "JH QH AH")
    waiting = state.__class__(**{**state.__dict__, "status": state.status.WAITING, "round": None})
    assert refused(waiting, "A fold") is RuleCode.NOT_STARTED


def test_question_pending_blocks_play_requests_and_redeals():
    state, _ = run(started("7C 8C KC", "JH QH AH"), "A raise")
    for step in ("A 7C", "B JH", "B raise", "B remainder", "A raise", "B propose_redeal"):
        assert refused(state, step) is RuleCode.QUESTION_PENDING


def test_nothing_to_answer_without_a_question():
    state = started("7C 8C KC", "JH QH AH")
    assert refused(state, "B accept") is RuleCode.NOTHING_TO_ANSWER
    assert refused(state, "A reject") is RuleCode.NOTHING_TO_ANSWER


def test_own_question_cannot_be_answered_by_its_asker():
    state, _ = run(started("7C 8C KC", "JH QH AH"), "A remainder")
    assert refused(state, "A accept") is RuleCode.OWN_QUESTION
    assert refused(state, "A remainder") is RuleCode.OWN_QUESTION


def test_redeal_closed_after_first_card_first_request_or_an_answer():
    state = started("7C 8C KC", "JH QH AH")
    assert refused(run(state, "A 7C")[0], "B propose_redeal") is RuleCode.REDEAL_CLOSED
    assert refused(run(state, "A raise", "B accept")[0], "B propose_redeal") is RuleCode.REDEAL_CLOSED
    assert refused(run(state, "B propose_redeal", "A reject")[0], "A propose_redeal") is RuleCode.REDEAL_CLOSED


def test_not_your_turn_for_plays_and_requests_but_redeal_may_come_from_either_seat():
    state = started("7C 8C KC", "JH QH AH")  # dealer B: A leads
    assert refused(state, "B JH") is RuleCode.NOT_YOUR_TURN
    assert refused(state, "B raise") is RuleCode.NOT_YOUR_TURN
    assert when(state, "B propose_redeal")


def test_remainder_round_refuses_requests():
    state, _ = run(started("7C 8C KC", "JH QH AH"), "A remainder", "B remainder")
    assert state.round.remainder_round
    assert refused(state, "A raise") is RuleCode.REMAINDER_ROUND
    assert refused(run(state, "A 7C")[0], "B remainder") is RuleCode.REMAINDER_ROUND


def test_not_entitled_to_request_twice_in_a_row_or_twice_in_a_turn():
    state, _ = run(started("7C 8C KC", "JH QH AH"), "A raise", "B accept")
    assert refused(state, "A raise") is RuleCode.NOT_ENTITLED
    assert refused(state, "A remainder") is RuleCode.NOT_ENTITLED


def test_card_not_in_hand_covers_unknown_foreign_played_and_discarded_cards():
    state = started("7C 8C KC", "JH QH AH", top="7H 7S 8H KS 9H QS")
    for card in ("ZZ", "1H", "7c", "JH"):
        assert refused(state, f"A {card}") is RuleCode.CARD_NOT_IN_HAND
    after_play, _ = run(state, "A 7C", "B JH")
    assert refused(after_play, "A 7C") is RuleCode.CARD_NOT_IN_HAND
    redealt, _ = run(state, "A propose_redeal", "B accept")
    assert refused(redealt, "A 7C") is RuleCode.CARD_NOT_IN_HAND


def test_first_code_in_table_order_wins():
    state, _ = run(started("7C 8C KC", "JH QH AH"), "A raise")
    # B playing A's card out of turn while a question is pending: QUESTION_PENDING comes first.
    assert refused(state, "B 7C") is RuleCode.QUESTION_PENDING
    # Answering one's own question with nothing else wrong: OWN_QUESTION.
    assert refused(state, "A reject") is RuleCode.OWN_QUESTION
    fresh = started("7C 8C KC", "JH QH AH")
    # Out of turn with a card not in hand: NOT_YOUR_TURN before CARD_NOT_IN_HAND.
    assert refused(fresh, "B 7C") is RuleCode.NOT_YOUR_TURN


def test_seating_codes():
    state = started("7C 8C KC", "JH QH AH")
    for player, code in (("p-a", RuleCode.ALREADY_SEATED), ("p-c", RuleCode.MATCH_FULL)):
        with pytest.raises(RuleError) as error:
            decide(state, JoinMatch(player))
        assert error.value.code is code


def test_a_refusal_changes_nothing():
    state = started("7C 8C KC", "JH QH AH")
    before = state
    refused(state, "B JH")
    assert state == before
