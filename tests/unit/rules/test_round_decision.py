"""Every row of R20's table, played out card by card."""
import pytest

from shared.rules import Seat
from shared.rules import events as ev

from .given import run, started

# One pair of cards per trick and outcome, all 18 distinct: (A's card, B's card).
_CARDS = [
    {"A": ("7S", "9H"), "B": ("9S", "7H"), "S": ("KS", "KH")},
    {"A": ("7D", "9C"), "B": ("9D", "7C"), "S": ("QD", "QC")},
    {"A": ("8S", "10H"), "B": ("10S", "8H"), "S": ("JS", "JH")},
]

R20_TABLE = {
    "AA": "A", "AS": "A", "SA": "A", "BB": "B", "BS": "B", "SB": "B",
    "ABA": "A", "ABB": "B", "ABS": "A", "BAB": "B", "BAA": "A", "BAS": "B",
    "SSA": "A", "SSB": "B", "SSS": None,
}


def _hands(sequence: str) -> tuple[str, str]:
    picks = [_CARDS[i][outcome] for i, outcome in enumerate(sequence)]
    # Fill the unplayed tricks with the spoiled pair so both hands hold three cards.
    picks += [_CARDS[i]["S"] for i in range(len(sequence), 3)]
    return " ".join(a for a, _ in picks), " ".join(b for _, b in picks)


@pytest.mark.parametrize(("sequence", "winner"), R20_TABLE.items())
def test_round_ends_exactly_when_r20_decides_it(sequence, winner):
    a, b = _hands(sequence)
    state = started(a, b)
    recorded = []
    for i, outcome in enumerate(sequence):
        leader = state.round.turn
        cards = dict(zip("AB", _CARDS[i][outcome]))
        follower = leader.other
        state, events = run(state, f"{leader.value} {cards[leader.value]}", f"{follower.value} {cards[follower.value]}")
        recorded += events
        ended = [e for e in recorded if isinstance(e, (ev.RoundWon, ev.RoundVoid))]
        assert bool(ended) == (i == len(sequence) - 1), f"round must end after trick {len(sequence)}"

    closing = ended[0]
    if winner is None:
        assert closing == ev.RoundVoid(1)
        assert state.scores == (0, 0)
    else:
        assert isinstance(closing, ev.RoundWon) and closing.seat is Seat(winner) and closing.points == 1


def test_void_round_scores_nothing_even_if_raised():
    state = started("KS QD JS", "KH QC JH")
    state, recorded = run(state, "A raise", "B accept", "A KS", "B KH", "A QD", "B QC", "A JS", "B JH")
    assert ev.RoundVoid(1) in recorded
    assert state.scores == (0, 0)
    assert state.round.number == 2 and state.round.dealer is Seat.A  # R22: the deal still passes
