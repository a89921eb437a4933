"""R31 resign, R32 cancel and lobby expiry, and what the views say of the clock and the ending."""
import random

import pytest

from shared.rules import (
    Cancel,
    CancelReason,
    ExpireLobby,
    JoinMatch,
    MatchState,
    Resign,
    RuleCode,
    RuleError,
    Seat,
    Status,
    WinReason,
    clocked,
    decide,
    legal_actions,
    replay,
    view,
)
from shared.rules import events as ev
from shared.rules.chance import SeededChance

from .given import MINUTE, T0, run, run_at, started, timed_out, waiting_at

HANDS = ("7C 8C KC", "JH QH AH")
HOUR = 3_600


def refused(state: MatchState, command) -> RuleCode:
    with pytest.raises(RuleError) as error:
        decide(state, command)
    assert error.value.message
    return error.value.code


def cancelled(reason: CancelReason = CancelReason.CREATOR) -> MatchState:
    return replay([ev.MatchCancelled(reason)], waiting_at(T0))


# --- R31: resign ------------------------------------------------------------------------


@pytest.mark.parametrize("steps", [(), ("A 7C",), ("A raise",), ("B propose_redeal",), ("A remainder", "B accept")])
@pytest.mark.parametrize("seat", [Seat.A, Seat.B])
def test_either_seat_resigns_at_any_moment_and_the_opponent_wins_with_the_scores_as_they_stood(steps, seat):
    state, _ = run(started(*HANDS, scores=(3, 5)), *steps)
    assert Resign(seat) in legal_actions(state, seat)

    events = decide(state, Resign(seat))

    assert events == [ev.MatchWon(seat.other, (3, 5), None, WinReason.RESIGNED)]
    after = replay(events, state)
    assert after.status is Status.FINISHED and after.winner is seat.other and after.scores == (3, 5)


def test_a_resignation_reveals_the_seed_like_any_end_of_a_match():
    chance = SeededChance("5e" * 32)
    assert decide(started(*HANDS), Resign(Seat.A), chance)[0].seed == chance.seed


def test_resign_is_refused_once_the_match_is_over_and_while_it_waits():
    finished, _ = run(started(*HANDS, scores=(11, 0)), "B fold")
    assert refused(finished, Resign(Seat.A)) is RuleCode.MATCH_OVER
    assert refused(cancelled(), Resign(Seat.A)) is RuleCode.MATCH_OVER
    assert refused(waiting_at(T0), Resign(Seat.A)) is RuleCode.NOT_STARTED


# --- R32: cancel and expiry ---------------------------------------------------------------


def test_the_creator_cancels_a_waiting_match_and_it_is_over_for_everything():
    waiting = waiting_at(T0)
    assert legal_actions(waiting, Seat.A) == [Cancel(Seat.A)] and legal_actions(waiting, Seat.B) == []

    events = decide(waiting, Cancel(Seat.A))

    assert events == [ev.MatchCancelled(CancelReason.CREATOR)]
    state = replay(events, waiting)
    assert state.status is Status.CANCELLED and state.status.over and state.winner is None
    for command in (Cancel(Seat.A), Resign(Seat.A), ExpireLobby(T0 + 10 * HOUR * 1000, HOUR)):
        assert refused(state, command) is RuleCode.MATCH_OVER
    assert refused(state, JoinMatch("p-b")) is RuleCode.MATCH_OVER
    assert legal_actions(state, Seat.A) == []


def test_a_cancel_once_the_second_player_joined_is_refused_and_never_listed():
    state = started(*HANDS)
    assert refused(state, Cancel(Seat.A)) is RuleCode.MATCH_STARTED
    assert refused(state, Cancel(Seat.B)) is RuleCode.MATCH_STARTED
    assert Cancel(Seat.A) not in legal_actions(state, Seat.A)
    finished, _ = run(started(*HANDS, scores=(11, 0)), "B fold")
    assert refused(finished, Cancel(Seat.A)) is RuleCode.MATCH_OVER


def test_a_cancel_never_waits_for_turn_order_and_only_the_creator_may_send_it():
    assert refused(waiting_at(T0), Cancel(Seat.B)) is RuleCode.NOT_STARTED  # seat B is nobody yet


def test_the_lobby_expires_a_match_nobody_joined_within_lobby_seconds():
    waiting = waiting_at(T0)
    assert refused(waiting, ExpireLobby(T0 + HOUR * 1000 - 1, HOUR)) is RuleCode.NOT_DUE

    events = decide(waiting, ExpireLobby(T0 + HOUR * 1000, HOUR))

    assert events == [ev.MatchCancelled(CancelReason.EXPIRED)]
    assert replay(events, waiting).status is Status.CANCELLED


def test_a_match_someone_joined_never_expires():
    waiting = waiting_at(T0)
    joined = clocked(replay(decide(waiting, JoinMatch("p-b"), random.Random(0)), waiting), T0 + 1_000)
    assert refused(joined, ExpireLobby(T0 + 10 * HOUR * 1000, HOUR)) is RuleCode.MATCH_STARTED


# --- Views: the clock and how the match ended ------------------------------------------------


def test_the_view_shows_who_owes_by_when_while_playing():
    state, _ = run_at(started(*HANDS), T0, "A raise")
    for audience in (Seat.A, Seat.B, None):
        shown = view(state, audience)
        assert shown["clock"] == {"seat": "B", "deadline": "2023-11-14T22:14:20.000Z", "turn_seconds": 60}
        assert shown["ended_by"] is None
    assert view(started(*HANDS), None)["clock"]["deadline"] is None  # folded without times


def _abandoned() -> MatchState:
    """A times out on round 1, then again on round 2 without an action of its own."""
    first = timed_out(clocked(started(*HANDS), T0), Seat.A, T0 + MINUTE)  # round 2: B leads
    state, _ = run_at(first, T0 + MINUTE + 1_000, f"B {first.round.hand(Seat.B)[0]}")
    return timed_out(state, Seat.A, T0 + 2 * MINUTE + 1_000)


@pytest.mark.parametrize(("state", "ended_by"), [
    (lambda: waiting_at(T0), None),
    (lambda: run(started(*HANDS, scores=(11, 0)), "B fold")[0], "score"),
    (lambda: run(started(*HANDS), "A fold", "B resign")[0], "resigned"),
    (lambda: run(started(*HANDS), "B resign")[0], "aborted"),  # before round 1 was complete
    (_abandoned, "abandoned"),
    (cancelled, "cancelled"),
    (lambda: cancelled(CancelReason.EXPIRED), "expired"),
])
def test_the_view_says_how_the_match_ended_and_shows_no_clock_unless_playing(state, ended_by):
    shown = view(state(), Seat.A)
    assert shown["ended_by"] == ended_by and shown["clock"] is None
    assert shown["status"] == {None: "waiting", "cancelled": "cancelled", "expired": "cancelled"}.get(
        ended_by, "finished")
