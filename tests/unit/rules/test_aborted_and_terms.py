"""What the fold derives of a match's result from its recorded events alone: a match resigned or
abandoned before round 1 is complete is aborted (a loss, but no result), and a clock under 15 s
or a target under 6 are custom terms. Nothing new is recorded, so old matches read alike."""
import pytest

from shared.rules import CreateMatch, Ending, MatchState, Rules, Seat, Status, WinReason, decide, replay, view
from shared.rules import events as ev
from shared.rules.state import copy_with

from .given import T0, run, run_at, started, timed_out

HANDS = ("7C 8C KC", "JH QH AH")  # B deals round 1: A leads


def ordinary(state: MatchState) -> MatchState:
    """``state`` as if its creator had chosen no decks: only the derived terms make it custom."""
    return copy_with(state, custom=False)


@pytest.mark.parametrize("steps", [(), ("A 7C",), ("A 7C", "B JH"), ("A raise",)])
@pytest.mark.parametrize("seat", [Seat.A, Seat.B])
def test_given_round_1_is_not_complete_a_resignation_aborts_the_match_but_the_resigner_still_loses(steps, seat):
    state, _ = run(ordinary(started(*HANDS)), *steps)

    state, events = run(state, f"{seat.value} resign")

    assert events[-1].reason is WinReason.RESIGNED  # recorded as ever: the fold says aborted
    assert state.status is Status.FINISHED and state.winner is seat.other
    assert state.ended_by is Ending.ABORTED and not state.ranked
    assert view(state, None)["ended_by"] == "aborted" and view(state, None)["winner"] == seat.other.value


def test_given_round_1_is_complete_a_resignation_is_an_ordinary_ranked_result():
    state, _ = run(ordinary(started(*HANDS)), "A fold")
    assert state.round.number == 2

    state, _ = run(state, "A resign")

    assert state.ended_by is Ending.RESIGNED and state.winner is Seat.B and state.ranked


def test_given_a_seat_times_out_twice_in_round_1_the_abandoned_match_is_aborted():
    # B's first timeout rejects A's redeal (the round goes on); B then owes a card and times out again.
    state, _ = run_at(ordinary(started(*HANDS)), T0, "A propose_redeal")
    state = timed_out(state, Seat.B, T0 + 60_000)
    state, _ = run_at(state, T0 + 61_000, "A 7C")
    assert state.round.number == 1

    state = timed_out(state, Seat.B, T0 + 121_000)

    assert state.winner is Seat.A and state.ended_by is Ending.ABORTED and not state.ranked


def test_a_match_won_on_score_in_round_1_is_not_aborted():
    state, _ = run(ordinary(started(*HANDS, scores=(11, 0))), "B fold")
    assert state.ended_by is Ending.SCORE and state.ranked


# --- custom terms ------------------------------------------------------------------------------


def created(rules: Rules) -> MatchState:
    return replay(decide(MatchState(), CreateMatch("m1", "p-a", rules, Seat.B)))


@pytest.mark.parametrize(("rules", "custom"), [
    (Rules(), False),
    (Rules(turn_seconds=15), False),
    (Rules(turn_seconds=14), True),
    (Rules(turn_seconds=5), True),
    (Rules(target=6), False),
    (Rules(target=5), True),
    (Rules(target=1, turn_seconds=5), True),
])
def test_a_short_clock_or_a_small_target_is_custom_terms(rules, custom):
    state = created(rules)
    assert state.custom is custom and view(state, None)["custom"] is custom and rules.custom_terms is custom


def test_an_old_match_recorded_not_custom_with_a_five_second_clock_is_custom_when_folded():
    recorded = ev.MatchCreated("m1", "p-a", Rules(turn_seconds=5), Seat.B, (0, 0), (), custom=False)
    state = replay([recorded])
    assert state.custom and view(state, Seat.A)["custom"]


def test_a_finished_match_on_custom_terms_is_never_ranked():
    state, _ = run(started(*HANDS, rules=Rules(turn_seconds=5), scores=(11, 0)), "B fold")
    assert state.status is Status.FINISHED and state.ended_by is Ending.SCORE and not state.ranked
