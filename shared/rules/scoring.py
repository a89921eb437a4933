"""Trick and round outcomes (R4, R20) and what a round's end is worth (R15, R18, R19, R21)."""
from __future__ import annotations

from dataclasses import dataclass, replace

from .cards import strength
from .state import MatchState, QuestionKind, RoundEnd, Seat, Trick
from .variants import RemainderReject


def trick_winner(trick: Trick) -> Seat | None:
    """The seat whose card ranks higher; None for equal ranks, a spoiled trick (R4)."""
    a, b = (strength(card) for card in trick.cards)
    if a == b:
        return None
    return Seat.A if a > b else Seat.B


@dataclass(frozen=True)
class Decision:
    """R20's verdict after a trick: the round goes on, is void, or has a winner."""

    over: bool
    winner: Seat | None = None


GOES_ON = Decision(over=False)


def decide_round(tricks: tuple[Trick, ...]) -> Decision:
    """Apply R20 to the completed tricks of a round."""
    won = [t.winner for t in tricks if t.winner is not None]
    spoiled = sum(1 for t in tricks if t.spoiled)
    for seat in (Seat.A, Seat.B):
        if won.count(seat) >= 2:
            return Decision(True, seat)
    if won:
        first = won[0]
        if won.count(first) + spoiled >= 2:
            return Decision(True, first)
    if len(tricks) == 3 and spoiled == 3:
        return Decision(True, None)
    return GOES_ON


@dataclass(frozen=True)
class Award:
    """Who scores how much when a round ends other than by tricks."""

    seat: Seat
    points: int
    reason: RoundEnd


def match_points(state: MatchState, seat: Seat) -> int:
    """Points that lift ``seat`` to the target exactly (a remainder result, R18/R25)."""
    return state.rules.target - state.score(seat)


def won_by_tricks(state: MatchState, seat: Seat) -> Award:
    """R21, or R18 in a remainder round: the winner takes the match."""
    rnd = state.round
    points = match_points(state, seat) if rnd.remainder_round else rnd.value
    return Award(seat, points, RoundEnd.TRICKS)


def rejection(state: MatchState) -> Award:
    """The pending request is rejected: R15 for a raise, R18 for a remainder."""
    rnd = state.round
    requester = rnd.pending.by
    if rnd.pending.kind is QuestionKind.RAISE:
        return Award(requester, rnd.value, RoundEnd.RAISE_REJECTED)
    if state.rules.remainder_reject is RemainderReject.MATCH:
        return Award(requester, match_points(state, requester), RoundEnd.REMAINDER_REJECTED)
    return Award(requester, rnd.value, RoundEnd.REMAINDER_REJECTED)


def fold(state: MatchState, folder: Seat) -> Award:
    """R19: what the folder's opponent gets."""
    rnd = state.round
    pending = rnd.pending
    if pending is not None and pending.kind is QuestionKind.REMAINDER and pending.by is not folder:
        return replace(rejection(state), reason=RoundEnd.FOLD)  # (a) as a rejection
    opponent = folder.other
    if rnd.remainder_round:
        return Award(opponent, match_points(state, opponent), RoundEnd.FOLD)  # (b)
    return Award(opponent, rnd.value, RoundEnd.FOLD)  # (c) a pending raise or redeal lapses
