"""The rated result a finished match adds to the ratings read model (pure)."""

from __future__ import annotations

from shared.fold import FoldedMatch
from shared.ratings.rating_fold import RatedResult
from shared.rules import Seat


def rated_result_of(projection: FoldedMatch) -> RatedResult | None:
    """The match's rated result once it is finished, rated and ranked; else None.

    It ended at its last event (``match_won``: nothing is recorded after it), a time the stream
    fixes, so every fold of the match gives the same result, whichever worker folds it.
    """
    state = projection.state
    a, b = state.players
    if not state.rated_result or a is None or b is None or projection.at is None:
        return None
    return RatedResult(projection.at, projection.match_id, a.id, b.id, state.winner is Seat.A)
