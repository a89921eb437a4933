"""Join a match: take seat B; the first round is dealt at once."""

from __future__ import annotations

from shared.fold import FoldedMatch
from shared.rules import JoinMatch, MatchState, RuleError, Rules, Seat, step
from shared.rules.variants import RANKED_TARGET, RANKED_TURN_SECONDS

from ..players import Player
from .application_errors import ApplicationError, CustomTermsError, MatchNotFoundError
from .invites import admits, shown_to
from .loading import cached
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

    As an action, a join is decided on this process's cached match, if it holds one, without
    reading the stream: the append's version check proves that state current. A refusal is
    only given on the stream as it is.
    """

    def attempt(match: FoldedMatch, fresh: bool) -> Recorded | None:
        try:
            return _seated(matches, match, player, accept_custom, invite)
        except (ApplicationError, RuleError):
            if fresh:
                raise
            return None  # refused by the cached state: ask the current one

    return retrying(matches, match_id, attempt, cached(matches, match_id))


def _seated(
    matches: Matches, match: FoldedMatch, player: Player, accept_custom: bool, invite: str | None,
) -> Recorded:
    """Seat ``player`` in B of ``match`` as folded, or refuse."""
    match_id = match.match_id
    if not shown_to(match.state, player) and not admits(matches, match_id, invite):
        raise MatchNotFoundError(match_id)
    stepped = step(match.state, JoinMatch(player.id), matches.chances.of(match_id))
    if match.state.custom and not accept_custom:
        raise CustomTermsError(len(match.state.decks), _start_scores(match.state), *_short_terms(match.state.rules))
    return record(matches, match, stepped, Seat.B, named=True)


def _start_scores(state: MatchState) -> tuple[int, int] | None:
    """The scores the creator set, if not 0-0 (a waiting match still holds them)."""
    return None if tuple(state.scores) == (0, 0) else tuple(state.scores)


def _short_terms(rules: Rules) -> tuple[int | None, int | None]:
    """The clock and the target, each if short enough to be custom terms (else None)."""
    return (rules.turn_seconds if rules.turn_seconds < RANKED_TURN_SECONDS else None,
            rules.target if rules.target < RANKED_TARGET else None)
