"""Which answer each outcome that is not a success gets: status, stable code, sentence.

Application errors, rule refusals, abuse limits and our own failures are mapped to HTTP here
only, each to an :class:`~.api_error.ApiError` (the one JSON shape); :func:`register` installs
the handlers so no outcome escapes that shape. Werkzeug's own errors: :mod:`.http_errors`."""
from __future__ import annotations

import math
from typing import Any

from flask import Flask, current_app
from redis.exceptions import RedisError

from shared.archive import ArchiveUnavailableError, DamagedArchiveError
from shared.codec import UnknownEventError
from shared.eventstore import CorruptEventError, NotDurableError
from shared.fold import GapError
from shared.limits import LimitedError
from shared.rules import RuleError, SetupError
from shared.rules.rule_errors import N_

from . import custom_terms
from .abuse_limits import headers
from .api_error import ApiError, invalid
from .app.application_errors import (
    AlreadySeatedError,
    ApplicationError,
    BusyError,
    CustomTermsError,
    KeyInUseError,
    KeyReusedError,
    MatchNotFoundError,
    NotAPlayerError,
    NotFinishedError,
    NotTheCreatorError,
    SeedUnavailableError,
    SeekNotFoundError,
    SeekOpenError,
    TooManyMatchesError,
    VersionConflictError,
)
from .language import Plural, mark_language, say

# Each application error's answer: status, stable code, and the sentence a player reads.
_ANSWERS: dict[type[ApplicationError], tuple[int, str, str]] = {
    MatchNotFoundError: (404, "NOT_FOUND", N_("There is no such match.")),
    NotAPlayerError: (403, "NOT_A_PLAYER", N_("You are not seated in this match.")),
    NotTheCreatorError: (403, "NOT_A_PLAYER", N_("Only the player who created this match may cancel it.")),
    AlreadySeatedError: (409, "ALREADY_SEATED", N_("You cannot play against yourself.")),
    KeyReusedError: (422, "IDEMPOTENCY_KEY_REUSED",
                     N_("This Idempotency-Key was already used with another request.")),
    KeyInUseError: (409, "IDEMPOTENCY_KEY_REUSED", N_("This Idempotency-Key is already in use; retry it.")),
    BusyError: (503, "BUSY", N_("The match is too busy right now; try again.")),
    SeedUnavailableError: (409, "SEED_UNAVAILABLE",
                           N_("This server does not hold the seed this match deals from; it cannot be played here.")),
    TooManyMatchesError: (409, "TOO_MANY_MATCHES", N_("You already sit in as many unfinished matches as a player "
                                                      "may; finish or cancel one first.")),
    SeekOpenError: (409, "SEEK_OPEN", N_("You are already looking for an opponent; withdraw that seek first.")),
    SeekNotFoundError: (404, "NOT_FOUND", N_("You have no open seek of that id: it was withdrawn, paired or has "
                                             "expired.")),
    NotFinishedError: (409, "MATCH_NOT_FINISHED", N_("A rematch can only be offered once the match is finished.")),
}


def answer(error: ApplicationError | RuleError) -> ApiError:
    """The HTTP answer to a use case's refusal: an application error, or a rule of the game (409)."""
    if isinstance(error, RuleError):
        return ApiError(409, error.code.value, error.template, params=error.params)
    if isinstance(error, CustomTermsError):
        return ApiError(409, "CUSTOM_TERMS", custom_terms.sentence(error),
                        params={"terms": custom_terms.Terms(error), "accept": '{"accept_custom": true}'})
    if isinstance(error, VersionConflictError):
        return ApiError(412, "VERSION_CONFLICT", "The match moved on: you acted on version {expected}, it is at "
                        "{actual}.", params={"expected": error.expected, "actual": error.actual},
                        version=error.actual)
    status, code, message = _ANSWERS[type(error)]
    return ApiError(status, code, message)


# What a player reads when an abuse limit refuses them, by the limit's name.
_LIMITED = {
    "registrations": N_("Too many players were registered from your address lately; try again in {wait}."),
    "streams": N_("Too many live streams are open from your address; close one, or try again in {wait}."),
    "matches": N_("You have created too many matches lately; try again in {wait}."),
    "waiting_matches": Plural("You already have {count} match waiting for an opponent; cancel it, or wait until "
                              "someone joins.",
                              "You already have {count} matches waiting for an opponent; cancel one, or wait until "
                              "someone joins.", 0),
    **dict.fromkeys(("actions", "credentials"), N_("You are acting too fast; try again in {wait}.")),
    **dict.fromkeys(("replays", "events"), N_("Your address reads match histories too fast; try again in {wait}.")),
    "joins": N_("You have tried to join too many matches lately; try again in {wait}."),
    "client_joins": N_("Too many matches were joined from your address lately; try again in {wait}."),
    **dict.fromkeys(("logins", "name_logins"), N_("Too many login attempts lately; try again in {wait}.")),
}


def limited(error: LimitedError) -> ApiError:
    """429 ``RATE_LIMITED``: which limit (``limit``), when to come back, and the RateLimit headers."""
    verdict = error.verdict
    message = _LIMITED[verdict.limit.name]
    if isinstance(message, Plural):
        message = Plural(message.singular, message.plural, verdict.limit.count)
    return ApiError(429, "RATE_LIMITED", message, headers=headers(verdict), limit=verdict.limit.name,
                    params={"wait": _in_words(verdict.reset_seconds)})


def _in_words(seconds: int) -> Plural:
    if seconds < 60:
        return Plural("{count} second", "{count} seconds", seconds)
    return Plural("{count} minute", "{count} minutes", math.ceil(seconds / 60))


def register(app: Flask) -> None:
    """Install the handlers so that no outcome escapes the JSON error shape, and the language hook."""
    app.register_error_handler(ApiError, ApiError.response)
    app.register_error_handler(ApplicationError, _refused)
    app.register_error_handler(RuleError, _refused)
    app.register_error_handler(SetupError, _bad_setup)
    app.register_error_handler(LimitedError, lambda error: limited(error).response())
    for failure in _FAILURES:
        app.register_error_handler(failure, _failed)
    app.register_error_handler(RecursionError, _too_deep)
    app.register_error_handler(Exception, _unexpected)
    app.after_request(mark_language)


def _refused(error: ApplicationError | RuleError) -> tuple[dict[str, Any], int, dict[str, str]]:
    return answer(error).response()


def _bad_setup(error: SetupError) -> tuple[dict[str, Any], int, dict[str, str]]:
    said = say(error.template, **error.params)
    return {"error": "INVALID_REQUEST", "message": said, "fields": {error.field: [said]}}, 400, {}


# Failures on our side, answered 503 and logged: (code, sentence, Retry-After, log level). NOT_DURABLE:
# APPEND_ACK=replica, no replica confirmed in time; MATCH_UNREADABLE: a damaged stream (parked too) or
# archived record; ARCHIVE_UNAVAILABLE: an archived match whose archive cannot be read now.
_FAILURES: dict[type[Exception], tuple[str, str, str | None, str]] = {
    RedisError: ("STORE_UNAVAILABLE", N_("The game store is unreachable; try again shortly."), "1", "warning"),
    NotDurableError: ("NOT_DURABLE", N_("Your move may not have been saved safely; retry it with the same "
                                        "Idempotency-Key to learn whether it was."), "1", "warning"),
    ArchiveUnavailableError: ("ARCHIVE_UNAVAILABLE", N_("This match is archived, and the archive is unreachable; "
                                                        "try again shortly."), "5", "warning"),
    **dict.fromkeys((CorruptEventError, UnknownEventError, GapError, DamagedArchiveError), (
        "MATCH_UNREADABLE", N_("This match's record is damaged; an operator must repair it."), None, "error")),
}


def _failed(error: Exception) -> tuple[dict[str, Any], int, dict[str, str]]:
    code, sentence, retry_after, level = next(found for kind, found in _FAILURES.items() if isinstance(error, kind))
    getattr(current_app.logger, level)("%s: %s", code, error)
    return ApiError(503, code, sentence, headers={"Retry-After": retry_after} if retry_after else None).response()


def _too_deep(error: RecursionError) -> tuple[dict[str, Any], int, dict[str, str]]:
    return invalid("The request body is nested too deeply.").response()


def _unexpected(error: Exception) -> tuple[dict[str, Any], int, dict[str, str]]:
    current_app.logger.exception("unexpected error")
    return ApiError(500, "INTERNAL", N_("Something went wrong on our side.")).response()
