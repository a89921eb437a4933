"""Why a use case records nothing: application errors, in the game's words, no HTTP in them.

``services/api/error_handlers.py`` answers each of them (and the rules' ``RuleError``) with an
HTTP status, a stable code and a sentence, in one place.
"""

from __future__ import annotations


class ApplicationError(Exception):
    """A use case refused a request, for a reason of its own (not a rule of the game)."""


class MatchNotFoundError(ApplicationError):
    """No match has this id."""


class NotAPlayerError(ApplicationError):
    """The player acts in a match without a seat in it."""


class NotTheCreatorError(ApplicationError):
    """A seated player other than the creator tries to cancel the match (R32)."""


class AlreadySeatedError(ApplicationError):
    """A match was created with its creator as the opponent."""


class VersionConflictError(ApplicationError):
    """The request's If-Match names a version the match has moved on from."""

    def __init__(self, expected: int, actual: int) -> None:
        super().__init__(f"acted on version {expected}, the match is at {actual}")
        self.expected, self.actual = expected, actual


class KeyReusedError(ApplicationError):
    """The Idempotency-Key was already used with another request."""


class KeyInUseError(ApplicationError):
    """The same request raced itself under one Idempotency-Key; the other one answers first."""


class BusyError(ApplicationError):
    """Concurrent appends kept winning: the action was decided again too many times."""


class SeedUnavailableError(ApplicationError):
    """This server does not hold the seed the match deals from (e.g. it was imported without it)."""


class TooManyMatchesError(ApplicationError):
    """The player already sits in as many unfinished matches as one may (MAX_PLAYING)."""


class CustomTermsError(ApplicationError):
    """The match's creator chose its decks, its starting scores, a short clock or a small target,
    and the joiner has not accepted that. Each is None (or 0 decks) when not chosen."""

    def __init__(self, decks: int, start_scores: tuple[int, int] | None, turn_seconds: int | None = None,
                 target: int | None = None) -> None:
        super().__init__(f"custom terms: {decks} deck(s), start scores {start_scores}, clock {turn_seconds}, "
                         f"target {target}")
        self.decks, self.start_scores, self.turn_seconds, self.target = decks, start_scores, turn_seconds, target


class SeekOpenError(ApplicationError):
    """The player has an open seek already (one at a time)."""

    def __init__(self, seek_id: str) -> None:
        super().__init__(f"seek {seek_id} is open")
        self.seek_id = seek_id


class SeekNotFoundError(ApplicationError):
    """No open seek of the caller's has this id (withdrawn, paired or expired)."""


class NotFinishedError(ApplicationError):
    """A rematch asked of a match that is not finished."""
