"""What a seat learns of its opponent: the answers to its own questions, read from its own
views, and the search answering for the opponent as that record says."""
import itertools
import random

import pytest

from shared.botplay.memory import Memory, Record, power
from shared.botplay.search import Budget, _Seats, search_strategy
from shared.botplay.zoo import ZOO, needs_me
from shared.rules import (
    DECK,
    INITIAL,
    SEATS,
    Accept,
    CreateMatch,
    JoinMatch,
    Reject,
    Seat,
    Status,
    command_for,
    step,
    view,
)
from shared.rules.chance import RandomChance
from tests.unit.botplay.test_knowledge import states


def _view(number: int, last: dict | None = None, you: str = "A") -> dict:
    return {"you": you, "round": {"number": number}, "last_round": last}


def _asked_in(number: int) -> Memory:
    memory = Memory()
    memory.acted({"round": {"number": number}}, {"type": "raise"})
    return memory


def test_a_question_answered_in_its_round_was_accepted():
    memory = _asked_in(2)
    memory.learn(_view(2))
    memory.learn(_view(2))  # the same view again: learnt once
    assert memory.record == Record(asked=1, folded=0)


def test_a_round_ended_by_refusing_my_question_was_a_fold():
    memory = _asked_in(2)
    memory.learn(_view(3, {"number": 2, "reason": "raise_rejected", "winner": "A"}))
    assert memory.record == Record(asked=1, folded=1)


def test_a_round_played_out_after_my_question_was_an_accept():
    memory = _asked_in(2)
    memory.learn(_view(3, {"number": 2, "reason": "tricks", "winner": "B"}))
    assert memory.record == Record(asked=1, folded=0)


def test_a_round_that_ended_unseen_teaches_nothing():
    memory = _asked_in(2)
    memory.learn(_view(4, {"number": 3, "reason": "raise_rejected", "winner": "A"}))
    assert memory.record == Record()


def test_plays_and_answers_ask_nothing():
    memory = Memory()
    for action in ({"type": "play", "card": "7S"}, {"type": "accept"}, {"type": "reject"}):
        memory.acted({"round": {"number": 1}}, action)
    memory.learn(_view(1))
    assert memory.record == Record()


def test_the_opponent_folds_its_weakest_hands_as_often_as_it_was_seen_to_fold():
    hands = list(itertools.combinations(DECK, 3))
    for record, rate in ((Record(), 1 / 6), (Record(asked=30, folded=30), 31 / 36), (Record(asked=30), 1 / 36)):
        assert record.fold_rate() == rate
        refused = sum(not record.accepts(hand) for hand in hands) / len(hands)
        assert rate - 0.1 <= refused <= rate + 0.01  # hands of equal power go together: a little less
    weakest, strongest = min(hands, key=power), max(hands, key=power)
    assert not Record(asked=30).accepts(weakest) and Record(asked=30, folded=30).accepts(strongest)


def _questions_put(seed: int):
    """Every state of a random match where a raise or remainder awaits its answer."""
    return [state for state in states(seed) if state.round.pending is not None
            and state.round.pending.kind.value in ("raise", "remainder")]


def test_the_search_has_the_opponent_answer_my_questions_as_the_record_says():
    asked = _questions_put(3) + _questions_put(4)
    assert asked
    for record in (Record(), Record(asked=20, folded=20), Record(asked=20)):
        for state in asked:
            me = state.round.pending.by
            seats = _Seats(me, record)
            answer = seats.answer(state, me.other)
            assert type(answer) is (Accept if record.accepts(state.round.hands[me.other.index]) else Reject)
            assert _Seats(me.other, record).answer(state, me) is None  # its questions, I answer by search


def _match_against(opponent: str, seed: int) -> tuple[Record, int, int]:
    """A search (A, keeping a memory) plays a whole match against ``opponent``: what its record
    learnt, the questions whose answer it saw (it decided again after them), and the refusals."""
    memory, questions, refused, waiting = Memory(), 0, 0, False
    players = {Seat.A: search_strategy(Budget(iterations=60, seconds=60.0), seed=seed, memory=memory),
               Seat.B: ZOO[opponent](random.Random(seed))}
    chance = RandomChance(random.Random(seed))
    state = step(INITIAL, CreateMatch("m", "a", first_dealer=Seat.B), chance).state
    state = step(state, JoinMatch("b"), chance).state
    while state.status is not Status.FINISHED:
        seat = next(seat for seat in SEATS if needs_me(view(state, seat)))
        action = players[seat](view(state, seat))
        if seat is Seat.A:
            questions, waiting = questions + waiting, action["type"] in ("raise", "remainder")
        refused += seat is Seat.B and action["type"] == "reject"
        state = step(state, command_for(seat, action), chance).state
    return memory.record, questions, refused


@pytest.mark.parametrize("opponent, folds", [("station", False), ("tight", True)])
def test_a_strategy_learns_each_answer_to_its_questions_once(opponent, folds):
    """Its record counts every question whose answer it saw, and the folds among them."""
    results = [_match_against(opponent, seed) for seed in range(6)]
    for record, questions, refused in results:
        assert record.asked == questions and record.folded <= refused
    assert sum(record.asked for record, _, _ in results) > 0
    assert (sum(record.folded for record, _, _ in results) > 0) is folds
