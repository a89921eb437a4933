"""Join a match: take seat B; the first round is dealt at once."""

from __future__ import annotations

from shared.fold import FoldedMatch
from shared.rules import JoinMatch, MatchState, Rules, Seat, step
from shared.rules.variants import RANKED_TARGET, RANKED_TURN_SECONDS

from ..players import Player
from .application_errors import CustomTermsError, MatchNotFoundError
from .invites import admits, shown_to
from .matches import Matches
from .recording import Recorded, record, retrying


def join(
    matches: Matches, match_id: str, player: Player, accept_custom: bool = False, invite: str | None = None,
) -> Recorded:
    """Seat ``player`` in B, decided on the stream as it is; the rules refuse a full match.

    A custom match (its creator chose the decks or the starting scores, and so may know
    the joiner's cards, or a short clock or a small target) is joined only by a player who
    accepted those terms. A private match nobody has joined yet is, to anyone without its
    ``invite``, no match at all.
    """

    def attempt(match: FoldedMatch, fresh: bool) -> Recorded:
        if not shown_to(match.state, player) and not admits(matches, match_id, invite):
            raise MatchNotFoundError(match_id)
        stepped = step(match.state, JoinMatch(player.id), matches.chances.of(match_id))
        if match.state.custom and not accept_custom:
            raise CustomTermsError(len(match.state.decks), _start_scores(match.state), *_short_terms(match.state.rules))
        return record(matches, match, stepped, Seat.B)

    return retrying(matches, match_id, attempt)


def _start_scores(state: MatchState) -> tuple[int, int] | None:
    """The scores the creator set, if not 0-0 (a waiting match still holds them)."""
    return None if tuple(state.scores) == (0, 0) else tuple(state.scores)


def _short_terms(rules: Rules) -> tuple[int | None, int | None]:
    """The clock and the target, each if short enough to be custom terms (else None)."""
    return (rules.turn_seconds if rules.turn_seconds < RANKED_TURN_SECONDS else None,
            rules.target if rules.target < RANKED_TARGET else None)
