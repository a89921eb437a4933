"""Loading a match: through the project's one fold (``shared.fold``), from this process's cache on."""

from __future__ import annotations

from shared.fold import FoldedMatch
from shared.rules import RuleCode, RuleError, Status

from .application_errors import MatchNotFoundError
from .matches import Matches


def latest(matches: Matches, match_id: str) -> FoldedMatch:
    """The match folded to the end of its stream (at version 0 if it has no events)."""
    return matches.folds.latest(matches.store, match_id)


def existing(matches: Matches, match_id: str) -> FoldedMatch:
    """The match folded to the end of its stream, for a command; MatchNotFoundError if it has no events.

    An archived match has no stream in Redis any more (an empty stream would fold to a match
    not created yet): a command on it is refused as on every finished match, MATCH_OVER.
    """
    match = latest(matches, match_id)
    if match.status is Status.NEW:
        if matches.archived(match_id):
            raise RuleError(RuleCode.MATCH_OVER, "The match is over: no more actions.")
        raise MatchNotFoundError(match_id)
    return match


def cached(matches: Matches, match_id: str) -> FoldedMatch | None:
    """The match as this process last folded it, if it did: it may be behind the stream."""
    match = matches.folds.get(match_id)
    return None if match is None or match.status is Status.NEW else match
