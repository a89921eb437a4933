"""Every variant of RULES.md section 10, and that a match replays under its own rules."""
import pytest

from shared.rules import InvalidRulesError, RuleCode, RuleError, Rules, Seat, SetupError, replay, view
from shared.rules import events as ev
from shared.rules.state import RoundEnd

from .given import run, started, started_events, when

HANDS = ("7C 8C KC", "JH QH AH")  # A wins every trick


def test_seed_ladder_goes_1_2_6_8_and_even_ladder_1_2_4_6():
    assert [Rules().next_value(v) for v in (1, 2, 6, 8)] == [2, 6, 8, 10]
    even = Rules.from_mapping({"raise_ladder": "even"})
    assert [even.next_value(v) for v in (1, 2, 4, 6)] == [2, 4, 6, 8]


def test_even_ladder_in_play():
    state, _ = run(started(*HANDS, rules=Rules.from_mapping({"raise_ladder": "even"})),
                   "A raise", "B accept", "A 7C", "B raise", "A accept")
    assert state.round.value == 4


def test_rejected_remainder_wins_the_match_by_default():
    state, _ = run(started(*HANDS, scores=(3, 5)), "A remainder")
    assert when(state, "B reject")[1:] == [
        ev.RoundWon(1, Seat.A, 9, RoundEnd.REMAINDER_REJECTED, (12, 5)), ev.MatchWon(Seat.A, (12, 5)),
    ]


def test_rejected_remainder_scores_the_previous_value_in_the_variant():
    rules = Rules.from_mapping({"remainder_reject": "previous_value"})
    state, _ = run(started(*HANDS, scores=(3, 5), rules=rules), "A raise", "B accept", "A 7C", "B remainder")
    assert when(state, "A reject")[1] == ev.RoundWon(1, Seat.B, 2, RoundEnd.REMAINDER_REJECTED, (3, 7))


def test_rejected_raise_scores_the_value_before_the_request():
    state, _ = run(started(*HANDS), "A raise", "B accept", "A 7C", "B raise")
    assert when(state, "A reject")[1] == ev.RoundWon(1, Seat.B, 2, RoundEnd.RAISE_REJECTED, (0, 2))


def test_folds_around_a_remainder():
    declared, _ = run(started(*HANDS, scores=(1, 2)), "A remainder")
    assert when(declared, "B fold")[1] == ev.RoundWon(1, Seat.A, 11, RoundEnd.FOLD, (12, 2))  # R19 (a)
    assert when(declared, "A fold")[1] == ev.RoundWon(1, Seat.B, 1, RoundEnd.FOLD, (1, 3))  # R19 (c)
    accepted, _ = run(declared, "B accept")
    assert when(accepted, "A fold")[1] == ev.RoundWon(1, Seat.B, 10, RoundEnd.FOLD, (1, 12))  # R19 (b)


def test_alternate_requests_off_lets_the_same_player_raise_again_on_a_later_turn():
    rules = Rules.from_mapping({"alternate_requests": False})
    state, _ = run(started(*HANDS, rules=rules), "A raise", "B accept")
    with pytest.raises(RuleError) as refused:
        when(state, "A raise")  # still one request per turn
    assert refused.value.code is RuleCode.NOT_ENTITLED
    state, _ = run(state, "A 7C", "B JH", "A raise", "B accept")
    assert state.round.value == 6
    with pytest.raises(RuleError):
        when(run(started(*HANDS), "A raise", "B accept", "A 7C", "B JH")[0], "A raise")


def test_non_dealer_redeal_variant_refuses_the_dealer():
    state = started(*HANDS, rules=Rules.from_mapping({"redeal_proposer": "non_dealer"}))
    with pytest.raises(RuleError) as refused:
        when(state, "B propose_redeal")  # B deals
    assert refused.value.code is RuleCode.NOT_ENTITLED
    assert when(state, "A propose_redeal") == [ev.RedealProposed(Seat.A)]


def test_no_redeal_variant():
    state = started(*HANDS, rules=Rules.from_mapping({"redeals_per_round": 0}))
    for step in ("A propose_redeal", "B propose_redeal"):
        with pytest.raises(RuleError) as refused:
            when(state, step)
        assert refused.value.code is RuleCode.NOT_ENTITLED


def test_target_sets_the_winning_score_and_remainder_results():
    rules = Rules.from_mapping({"target": 5})
    state, _ = run(started(*HANDS, rules=rules, scores=(1, 0)), "A raise", "B accept", "A 7C", "B raise", "A accept")
    events = when(run(state, "B JH", "A 8C")[0], "B QH")
    assert events[-2:] == [ev.RoundWon(1, Seat.A, 6, RoundEnd.TRICKS, (7, 0)), ev.MatchWon(Seat.A, (7, 0))]
    declared, _ = run(started(*HANDS, rules=rules), "A remainder")
    assert when(declared, "B reject")[1].scores == (5, 0)
    with pytest.raises(SetupError):
        started(*HANDS, rules=rules, scores=(5, 0))


def test_a_match_replays_under_the_rules_it_was_created_with():
    rules = Rules.from_mapping({"raise_ladder": "even", "target": 7})
    given = started_events(*HANDS, rules=rules)
    state, recorded = run(replay(given), "A raise", "B accept", "A 7C", "B raise", "A accept")
    rebuilt = replay(given + recorded)
    assert rebuilt == state and rebuilt.rules == rules and rebuilt.round.value == 4
    assert view(rebuilt, None)["rules"] == {
        "raise_ladder": "even", "remainder_reject": "match", "alternate_requests": True,
        "redeal_proposer": "either", "redeals_per_round": 1, "target": 7, "turn_seconds": 60,
    }


@pytest.mark.parametrize("bad", [
    {"ladder": "seed"}, {"raise_ladder": "odd"}, {"alternate_requests": "yes"},
    {"redeals_per_round": 2}, {"target": 0}, {"target": 1001}, {"target": True}, {"remainder_reject": None},
])
def test_unknown_or_invalid_variants_are_refused(bad):
    with pytest.raises(InvalidRulesError) as error:
        Rules.from_mapping(bad)
    assert error.value.key in bad
