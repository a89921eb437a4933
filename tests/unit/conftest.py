"""Stand-ins for the match clock (RULES.md R28) until the engine's own is merged.

The read side already calls ``shared.rules.owes`` and ``shared.rules.deadline`` and the
clock index's key ``keys.CLOCKS``; the engine's clock brings them. Until it does, these
stand-ins let the unit tests import and run that code. Each is installed only when the
real one is missing, so once the clock is merged this file does nothing (delete it then).
"""
from __future__ import annotations

import shared.rules
from shared import keys
from shared.rules import MatchState, Seat, Status


def _owes(state: MatchState) -> Seat | None:
    """The seat the match waits for: the one asked a question, else the one on turn."""
    rnd = state.round
    if state.status is not Status.PLAYING or rnd is None:
        return None
    return rnd.pending.by.other if rnd.pending is not None else rnd.turn


def _deadline(state: MatchState) -> int | None:
    """No clock runs without the engine's: no deadline."""
    return None


for _name, _stand_in in (("owes", _owes), ("deadline", _deadline)):
    if not hasattr(shared.rules, _name):
        setattr(shared.rules, _name, _stand_in)
if not hasattr(keys, "CLOCKS"):
    keys.CLOCKS = f"{keys.PREFIX}:clocks"
