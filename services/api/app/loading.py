"""Loading a match: through the project's one fold (``shared.fold``), from this process's cache on."""

from __future__ import annotations

from shared.fold import FoldedMatch
from shared.rules import Status

from .application_errors import MatchNotFoundError
from .matches import Matches


def latest(matches: Matches, match_id: str) -> FoldedMatch:
    """The match folded to the end of its stream (at version 0 if it has no events)."""
    return matches.folds.latest(matches.store, match_id)


def existing(matches: Matches, match_id: str) -> FoldedMatch:
    """The match folded to the end of its stream; MatchNotFoundError if it has no events."""
    match = latest(matches, match_id)
    if match.status is Status.NEW:
        raise MatchNotFoundError(match_id)
    return match


def cached(matches: Matches, match_id: str) -> FoldedMatch | None:
    """The match as this process last folded it, if it did: it may be behind the stream."""
    match = matches.folds.get(match_id)
    return None if match is None or match.status is Status.NEW else match
