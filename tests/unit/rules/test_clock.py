"""R28-R30: who owes the next decision and by when, timeouts and abandonment, with time given."""
import pytest

from shared.rules import (
    CreateMatch,
    InvalidRulesError,
    MatchState,
    RuleCode,
    RuleError,
    Rules,
    Seat,
    TimeOut,
    WinReason,
    clocked,
    deadline,
    decide,
    default_decision,
    owes,
    replay,
)
from shared.rules import events as ev
from shared.rules.state import RoundEnd

from .given import MINUTE, T0, deck_for, run, run_at, started, time_out, timed_out, waiting_at

HANDS = ("7C 8C KC", "JH QH AH")  # dealer B, so A leads round 1; A wins every trick
ROUND_2 = deck_for("7D 8D KD", "9S 10S JS")  # dealer A: B leads, A takes what B leads


def dealt(**options) -> MatchState:
    """Round 1 dealt at T0."""
    return clocked(started(*HANDS, later_decks=(ROUND_2,), **options), T0)


def not_due(state: MatchState, seat: Seat, now_ms: int) -> str:
    with pytest.raises(RuleError) as refused:
        time_out(state, seat, now_ms)
    assert refused.value.code is RuleCode.NOT_DUE and refused.value.message
    return refused.value.message


# --- R28: the clock -------------------------------------------------------------------


def test_turn_seconds_is_a_variant_from_five_seconds_to_a_week_recorded_at_creation():
    assert Rules().turn_seconds == 60
    assert Rules.from_mapping({"turn_seconds": 5}).turn_seconds == 5
    assert Rules.from_mapping({"turn_seconds": 604_800}).to_dict()["turn_seconds"] == 604_800
    for wrong in (4, 604_801, True, 60.0, "60"):
        with pytest.raises(InvalidRulesError) as refused:
            Rules.from_mapping({"turn_seconds": wrong})
        assert refused.value.key == "turn_seconds"
    rules = Rules.from_mapping({"turn_seconds": 30})
    created = decide(MatchState(), CreateMatch("m", "p", rules, Seat.A))[0]
    assert created.rules.turn_seconds == 30


def test_the_seat_on_turn_owes_until_the_latest_event_plus_turn_seconds():
    state = dealt()
    assert owes(state) is Seat.A and deadline(state) == T0 + MINUTE
    quick = clocked(started(*HANDS, rules=Rules.from_mapping({"turn_seconds": 5})), T0)
    assert deadline(quick) == T0 + 5_000


def test_every_event_restarts_the_clock_of_whoever_owes_next():
    state, _ = run_at(dealt(), T0 + 7_000, "A 7C")
    assert owes(state) is Seat.B and deadline(state) == T0 + 7_000 + MINUTE


@pytest.mark.parametrize(("steps", "asked"), [
    (("A raise",), Seat.B),
    (("A remainder",), Seat.B),
    (("B propose_redeal",), Seat.A),  # B is not on turn: the question still asks A
    (("A propose_redeal",), Seat.B),
])
def test_a_pending_question_owes_its_answer_from_the_seat_asked(steps, asked):
    state, _ = run_at(dealt(), T0 + 1_000, *steps)
    assert owes(state) is asked and deadline(state) == T0 + 1_000 + MINUTE


def test_nobody_owes_while_waiting_once_finished_or_without_a_time():
    waiting = waiting_at(T0)
    finished, _ = run_at(dealt(scores=(11, 0)), T0, "B fold")
    assert owes(waiting) is None and deadline(waiting) is None
    assert owes(finished) is None and deadline(finished) is None
    assert owes(started(*HANDS)) is Seat.A and deadline(started(*HANDS)) is None  # folded without times


# --- R29: a timeout is decided like any action ------------------------------------------


def test_a_timeout_is_not_due_before_the_deadline_nor_for_a_seat_that_does_not_owe():
    state = dealt()
    assert "not passed" in not_due(state, Seat.A, T0 + MINUTE - 1)
    assert "owes no decision" in not_due(state, Seat.B, T0 + 10 * MINUTE)
    assert "not passed" in not_due(started(*HANDS), Seat.A, T0 + 10 * MINUTE)  # no clock, no deadline


def test_the_seat_on_turn_that_times_out_folds_with_all_its_consequences():
    state = dealt(scores=(2, 3))

    events = time_out(state, Seat.A, T0 + MINUTE)  # due from the deadline itself

    assert events[:3] == [
        ev.TurnTimedOut(Seat.A, T0 + MINUTE), ev.Folded(Seat.A), ev.RoundWon(1, Seat.B, 1, RoundEnd.FOLD, (2, 4)),
    ]
    assert isinstance(events[3], ev.RoundDealt) and events[3].round == 2 and len(events) == 4


def test_a_seat_asked_a_raise_that_times_out_rejects_it():
    state, _ = run_at(dealt(), T0 + 1_000, "A raise", "B accept", "A 7C", "B raise")

    events = time_out(state, Seat.A, T0 + 1_000 + MINUTE)

    assert events[:3] == [
        ev.TurnTimedOut(Seat.A, T0 + 1_000 + MINUTE), ev.RaiseRejected(Seat.A),
        ev.RoundWon(1, Seat.B, 2, RoundEnd.RAISE_REJECTED, (0, 2)),  # R15: the value before the request
    ]


def test_a_seat_asked_a_remainder_that_times_out_rejects_it_and_the_declarer_wins_the_match():
    state, _ = run_at(dealt(scores=(3, 5)), T0, "A remainder")

    events = time_out(state, Seat.B, T0 + MINUTE)

    assert events[:2] == [ev.TurnTimedOut(Seat.B, T0 + MINUTE), ev.RemainderRejected(Seat.B)]
    assert events[-1] == ev.MatchWon(Seat.A, (12, 5), events[-1].seed, WinReason.SCORE)  # R18


def test_a_seat_asked_a_redeal_that_times_out_rejects_it_and_the_round_goes_on():
    state, _ = run_at(dealt(), T0, "B propose_redeal")

    after = timed_out(state, Seat.A, T0 + MINUTE)

    assert time_out(state, Seat.A, T0 + MINUTE) == [ev.TurnTimedOut(Seat.A, T0 + MINUTE), ev.RedealRejected(Seat.A)]
    assert after.round.hand(Seat.A) == ("7C", "8C", "KC") and owes(after) is Seat.A
    assert deadline(after) == T0 + 2 * MINUTE


def test_the_default_decision_is_reject_for_a_question_asked_else_fold():
    state = dealt()
    raised, _ = run(state, "A raise")
    assert default_decision(state, Seat.A).action == "fold"
    assert default_decision(raised, Seat.B).action == "reject"
    assert default_decision(raised, Seat.A).action == "fold"  # its own question asks nothing of it


def test_a_move_that_lands_first_wins_and_the_stale_timeout_is_refused():
    state = dealt()
    late, _ = run_at(state, T0 + MINUTE + 500, "A 7C")  # past the deadline, before the service acted

    assert "owes no decision" in not_due(late, Seat.A, T0 + MINUTE + 600)
    assert "not passed" in not_due(late, Seat.B, T0 + MINUTE + 600)
    assert time_out(late, Seat.B, T0 + 2 * MINUTE + 500)[0] == ev.TurnTimedOut(Seat.B, T0 + 2 * MINUTE + 500)


# --- R30: abandonment -------------------------------------------------------------------


def test_a_seat_that_times_out_twice_in_a_row_loses_the_match_with_the_scores_as_they_stood():
    first = timed_out(dealt(scores=(4, 1)), Seat.A, T0 + MINUTE)  # A folds: 4-2; round 2, B leads
    state, _ = run_at(first, T0 + MINUTE + 3_000, "B 9S")

    events = time_out(state, Seat.A, T0 + 2 * MINUTE + 3_000)

    assert events == [
        ev.TurnTimedOut(Seat.A, T0 + 2 * MINUTE + 3_000),
        ev.MatchWon(Seat.B, (4, 2), events[-1].seed, WinReason.ABANDONED),
    ]
    assert replay(events, state).winner is Seat.B


def test_the_other_seat_timing_out_between_does_not_save_the_first():
    first = timed_out(dealt(), Seat.A, T0 + MINUTE)  # round 2: dealer A, B leads
    second = timed_out(first, Seat.B, T0 + 2 * MINUTE)  # B's first: it folds; round 3, A leads
    assert owes(second) is Seat.A

    events = time_out(second, Seat.A, T0 + 3 * MINUTE)

    assert events[-1].reason is WinReason.ABANDONED and events[-1].seat is Seat.B


def test_an_action_of_its_own_between_two_timeouts_keeps_the_seat_in_the_match():
    first = timed_out(dealt(), Seat.A, T0 + MINUTE)
    state, _ = run_at(first, T0 + MINUTE + 2_000, "B 9S", "A 7D")  # A takes the trick and leads

    events = time_out(state, Seat.A, T0 + 2 * MINUTE + 2_000)

    assert events[:2] == [ev.TurnTimedOut(Seat.A, T0 + 2 * MINUTE + 2_000), ev.Folded(Seat.A)]
    assert not any(isinstance(e, ev.MatchWon) for e in events)


def test_the_default_decision_a_timeout_made_is_not_an_action_of_the_seats_own():
    state = timed_out(dealt(), Seat.A, T0 + MINUTE)
    assert state.timeouts == (1, 0) and state.defaulting is None
    state, _ = run(state, "B 9S", "A 7D")
    assert state.timeouts == (0, 0)


def test_a_timeout_once_the_match_is_over_or_before_it_starts_is_refused_as_any_action():
    finished, _ = run_at(dealt(scores=(11, 0)), T0, "B fold")
    waiting = waiting_at(T0)
    for state, code in ((finished, RuleCode.MATCH_OVER), (waiting, RuleCode.NOT_STARTED)):
        with pytest.raises(RuleError) as refused:
            decide(state, TimeOut(Seat.A, T0 + 10 * MINUTE))
        assert refused.value.code is code
