"""R33: a bounded match. A new match's target is at most 100 (a recorded one keeps up to 1000),
and a match ends after 4 x target rounds, void rounds included and redeals not counted: the
higher score wins, equal scores go to the seat that did not deal the last round."""
import pytest

from shared.rules import Ending, InvalidRulesError, MatchState, Rules, Seat, Status, WinReason, replay, view
from shared.rules import events as ev
from shared.rules.variants import MAX_NEW_TARGET, MAX_TARGET

from .given import deck_for, run, started_events

# Three spoiled tricks (equal ranks, R20): a void round whoever deals; a redeal from this
# deck's stock (R8: non-dealer 9S 8S 7S, dealer 9H 8H 7D) spoils every trick too.
SPOILING = ("KS QD JS", "KH QC JH")
REDEALT = "9S 9H 8S 8H 7S 7D"
SPOILING_DECK = deck_for(*SPOILING, top=REDEALT)


def _rank(card: str) -> str:
    return card[:-1]


def void_round(state: MatchState) -> tuple[MatchState, list[ev.Event]]:
    """Play the round out as three spoiled tricks: each follower answers the leader's rank."""
    recorded: list[ev.Event] = []
    for _ in range(3):
        leader = state.round.turn
        card = state.round.hand(leader)[0]
        answer = next(c for c in state.round.hand(leader.other) if _rank(c) == _rank(card))
        state, events = run(state, f"{leader.value} {card}", f"{leader.other.value} {answer}")
        recorded += events
    return state, recorded


def capped_events(target: int, rounds: int, dealer: Seat = Seat.B, scores: tuple[int, int] = (0, 0),
                  rules: Rules | None = None) -> list[ev.Event]:
    """A match of ``target`` whose first ``rounds`` deals (fixture decks) all spoil every trick."""
    return started_events(*SPOILING, dealer=dealer, scores=scores, rules=rules or Rules(target=target), top=REDEALT,
                          later_decks=(SPOILING_DECK,) * (rounds - 1))


def capped_match(target: int, rounds: int, **options) -> MatchState:
    return replay(capped_events(target, rounds, **options))


def void_rounds(state: MatchState, count: int) -> tuple[MatchState, list[ev.Event]]:
    recorded: list[ev.Event] = []
    for _ in range(count):
        state, events = void_round(state)
        recorded += events
    return state, recorded


# --- the cap ---------------------------------------------------------------------------------


def test_the_cap_is_four_rounds_a_point_of_the_target():
    assert Rules(target=12).round_cap == 48 and Rules(target=1).round_cap == 4


@pytest.mark.parametrize(("first_dealer", "winner"), [(Seat.B, Seat.B), (Seat.A, Seat.A)])
def test_given_equal_scores_at_the_cap_the_seat_that_did_not_deal_the_last_round_wins(first_dealer, winner):
    state = capped_match(target=1, rounds=4, dealer=first_dealer)  # cap: 4 rounds; the deal alternates
    state, _ = void_rounds(state, 3)
    assert state.status is Status.PLAYING and state.round.number == 4
    last_dealer = state.round.dealer

    state, events = void_round(state)

    assert last_dealer is winner.other
    assert events[-2:] == [ev.RoundVoid(4), ev.MatchWon(winner, (0, 0), None, WinReason.ROUND_CAP)]
    assert state.status is Status.FINISHED and state.winner is winner and state.ended_by is Ending.ROUND_CAP
    assert view(state, Seat.A)["ended_by"] == "round_cap" and view(state, None)["winner"] == winner.value


def test_given_a_higher_score_at_the_cap_it_wins_whoever_dealt():
    # Target 2: cap 8. B deals round 1, so A deals round 8 and B would win a tie.
    state = capped_match(target=2, rounds=8, scores=(1, 0))
    state, events = void_rounds(state, 8)
    assert events[-1] == ev.MatchWon(Seat.A, (1, 0), None, WinReason.ROUND_CAP)


def test_won_and_void_rounds_both_count_towards_the_cap():
    # Target 3: cap 12. Round 1 is won on a fold (1 point), then 11 void rounds end the match.
    state = capped_match(target=3, rounds=12)
    state, events = run(state, "A fold")
    assert events[-2] == ev.RoundWon(1, Seat.B, 1, ev.RoundEnd.FOLD, (0, 1))
    state, _ = void_rounds(state, 10)
    assert state.status is Status.PLAYING and state.round.number == 12

    state, events = void_round(state)

    assert events[-1] == ev.MatchWon(Seat.B, (0, 1), None, WinReason.ROUND_CAP)


def test_a_redeal_is_not_a_round():
    state, redeals = capped_match(target=1, rounds=4), []  # cap: 4 rounds
    for _ in range(3):
        state, events = run(state, "A propose_redeal", "B accept")
        redeals += [e for e in events if isinstance(e, ev.RedealAccepted)]
        state, _ = void_round(state)
    assert len(redeals) == 3 and state.status is Status.PLAYING and state.round.number == 4

    state, events = void_round(state)

    assert events[-1].reason is WinReason.ROUND_CAP


def test_reaching_the_target_on_the_cap_round_is_a_win_on_score():
    state = capped_match(target=1, rounds=4)
    state, _ = void_rounds(state, 3)
    state, events = run(state, f"{state.round.turn.value} fold")
    assert events[-1].reason is WinReason.SCORE and state.ended_by is Ending.SCORE


def test_a_capped_match_folds_back_to_the_same_state_from_its_events():
    events = capped_events(target=1, rounds=4)
    state, played = void_rounds(replay(events), 4)
    assert replay(events + played) == state and state.ended_by is Ending.ROUND_CAP


# --- the target of a new match, and of a recorded one ----------------------------------------


def test_a_new_match_chooses_a_target_up_to_100_only():
    assert Rules.from_mapping({"target": MAX_NEW_TARGET}, new=True).target == 100
    with pytest.raises(InvalidRulesError) as refused:
        Rules.from_mapping({"target": MAX_NEW_TARGET + 1}, new=True)
    assert refused.value.key == "target" and refused.value.params["high"] == 100


@pytest.mark.parametrize("target", [101, 500, MAX_TARGET])
def test_a_recorded_match_keeps_a_target_up_to_1000(target):
    assert Rules.from_mapping({"target": target}).target == target
    with pytest.raises(InvalidRulesError):
        Rules.from_mapping({"target": MAX_TARGET + 1})


def test_given_an_old_match_of_target_1000_it_folds_and_plays_on_to_its_own_cap():
    events = capped_events(target=MAX_TARGET, rounds=3, rules=Rules.from_mapping({"target": MAX_TARGET}))
    state = replay(events)
    assert state.rules.target == 1000 and state.rules.round_cap == 4000
    state, played = void_rounds(state, 2)
    assert state.status is Status.PLAYING and state.round.number == 3
    assert replay(events + played) == state
