"""``legal_actions(state, seat)``: exactly the actions ``decide`` accepts from that seat now."""
from __future__ import annotations

from .cards import DECK
from .check import permitted
from .commands import PlayCard, PlayerAction
from .state import SEATS, MatchState, Seat

# Commands are immutable values: the legal actions are made of these, built once, rather than
# built anew on every call (a search lists them at every move of every playout).
_PLAYS = {(seat, card): PlayCard(seat, card) for seat in SEATS for card in DECK}
_OTHERS: dict[tuple[tuple[type[PlayerAction], ...], Seat], list[PlayerAction]] = {}


def legal_actions(state: MatchState, seat: Seat) -> list[PlayerAction]:
    """Every command ``seat`` may send now; built from the same check ``decide`` applies
    (``check.permitted``, ``check.refusal``'s rules walked once for the seat)."""
    cards, kinds = permitted(state, seat)
    actions: list[PlayerAction] = [_PLAYS[seat, card] for card in state.round.hand(seat)] if cards else []
    others = _OTHERS.get((kinds, seat))
    if others is None:
        others = _OTHERS[kinds, seat] = [kind(seat) for kind in kinds]
    return actions + others
