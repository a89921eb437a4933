"""``view(state, seat)``: the match as one seat (or a spectator, ``None``) may see it.

Hidden information lives here only: a seat sees its own unplayed cards, never the other
seat's and never the stock; a spectator sees neither hand.
"""
from __future__ import annotations

from typing import Any

from .legal import legal_actions
from .state import SEATS, MatchState, RoundState, RoundSummary, Seat, Status, Trick


def view(state: MatchState, seat: Seat | None, reveal: bool = False) -> dict[str, Any]:
    """A JSON-ready view shaped as the HTTP API's match view (without id and version).

    ``reveal`` adds both hands: for replaying a finished match, where nothing is secret.
    """
    seated = seat is not None and state.status is not Status.NEW
    return {
        "status": state.status.value,
        "rules": state.rules.to_dict(),
        "custom": state.custom,
        "players": {
            s.value: (None if p is None else {"id": p.id, "name": p.name})
            for s, p in zip(SEATS, state.players)
        },
        "scores": _by_seat(state.scores),
        "winner": state.winner.value if state.winner else None,
        "you": seat.value if seated else None,
        "round": _round(state.round, seat, reveal) if state.round else None,
        "last_round": _last_round(state.last_round) if state.last_round else None,
        "legal_actions": [c.body() for c in legal_actions(state, seat)] if seated else [],
        "fairness": {"seed_commitment": state.seed_commitment, "seed": state.seed},
    }


def _by_seat(pair: tuple) -> dict[str, Any]:
    return {"A": pair[0], "B": pair[1]}


def _trick(trick: Trick) -> dict[str, Any]:
    return {
        "leader": trick.leader.value,
        "cards": _by_seat(trick.cards),
        "winner": trick.winner.value if trick.winner else None,
        "spoiled": trick.spoiled,
    }


def _round(rnd: RoundState, seat: Seat | None, reveal: bool) -> dict[str, Any]:
    pending = rnd.pending
    shown: dict[str, Any] = {
        "number": rnd.number,
        "dealer": rnd.dealer.value,
        "value": rnd.value,
        "pending": None if pending is None else {
            "type": pending.kind.value, "by": pending.by.value, "value": pending.value,
        },
        "remainder_round": rnd.remainder_round,
        "turn": rnd.turn.value,
        "tricks": [_trick(t) for t in rnd.tricks],
        "cards_left": _by_seat(tuple(len(hand) for hand in rnd.hands)),
    }
    if seat is not None:
        shown["hand"] = list(rnd.hand(seat))
    if reveal:
        shown["hands"] = {s.value: list(rnd.hand(s)) for s in SEATS}
    return shown


def _last_round(summary: RoundSummary) -> dict[str, Any]:
    return {
        "number": summary.number,
        "dealer": summary.dealer.value,
        "value": summary.value,
        "winner": summary.winner.value if summary.winner else None,
        "points": summary.points,
        "reason": summary.reason.value,
        "tricks": [_trick(t) for t in summary.tricks],
    }
