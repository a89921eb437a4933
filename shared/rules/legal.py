"""``legal_actions(state, seat)``: exactly the actions ``decide`` accepts from that seat now."""
from __future__ import annotations

from .check import permitted
from .commands import PlayCard, PlayerAction
from .state import MatchState, Seat


def legal_actions(state: MatchState, seat: Seat) -> list[PlayerAction]:
    """Every command ``seat`` may send now; built from the same check ``decide`` applies
    (``check.permitted``, ``check.refusal``'s rules walked once for the seat)."""
    cards, kinds = permitted(state, seat)
    actions: list[PlayerAction] = [PlayCard(seat, card) for card in state.round.hand(seat)] if cards else []
    actions += [kind(seat) for kind in kinds]
    return actions
