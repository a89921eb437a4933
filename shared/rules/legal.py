"""``legal_actions(state, seat)``: exactly the actions ``decide`` accepts from that seat now."""
from __future__ import annotations

from .check import refusal
from .commands import (
    Accept,
    Cancel,
    DeclareRemainder,
    Fold,
    PlayCard,
    PlayerAction,
    ProposeRedeal,
    Raise,
    Reject,
    Resign,
)
from .state import MatchState, Seat

_OTHER_ACTIONS = (Raise, DeclareRemainder, Accept, Reject, Fold, ProposeRedeal, Resign, Cancel)


def legal_actions(state: MatchState, seat: Seat) -> list[PlayerAction]:
    """Every command ``seat`` may send now; built from the same check ``decide`` applies."""
    candidates: list[PlayerAction] = []
    if state.round is not None:
        candidates += [PlayCard(seat, card) for card in state.round.hand(seat)]
    candidates += [kind(seat) for kind in _OTHER_ACTIONS]
    return [command for command in candidates if refusal(state, command) is None]
