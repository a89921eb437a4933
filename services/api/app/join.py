"""Join a match: take seat B; the first round is dealt at once."""

from __future__ import annotations

from shared.fold import FoldedMatch
from shared.rules import JoinMatch, Seat, decide

from ..players import Player
from .matches import Matches
from .recording import Recorded, record, retrying


def join(matches: Matches, match_id: str, player: Player) -> Recorded:
    """Seat ``player`` in B, decided on the stream as it is; the rules refuse a full match."""

    def attempt(match: FoldedMatch, fresh: bool) -> Recorded:
        events = decide(match.state, JoinMatch(player.id, player.name), matches.chances.of(match_id))
        return record(matches, match, events, Seat.B)

    return retrying(matches, match_id, attempt)
