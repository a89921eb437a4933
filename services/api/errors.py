"""Every error the API answers: one JSON shape, a stable code, one human sentence.

Application errors and rule refusals are mapped to HTTP here only. A sentence stays an English
template with values until answered, then is translated (:mod:`.language`); codes never change."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from flask import Flask, current_app
from redis.exceptions import RedisError
from werkzeug.exceptions import HTTPException

from shared.codec import UnknownEventError
from shared.eventstore import CorruptEventError, NotDurableError
from shared.fold import GapError
from shared.i18n import Translator, translator
from shared.limits import LimitedError
from shared.rules import RuleError, SetupError
from shared.rules.errors import N_

from .app.errors import (
    AlreadySeatedError,
    ApplicationError,
    BusyError,
    CustomTermsError,
    KeyInUseError,
    KeyReusedError,
    MatchNotFoundError,
    NotAPlayerError,
    NotTheCreatorError,
    SeedUnavailableError,
    VersionConflictError,
)
from .language import Plural, mark_language, say, translated_fields, translator_now
from .limits import headers


class ApiError(Exception):
    """An error answered as ``{"error": code, "message": ..., **detail}`` with ``status``.

    ``message`` is an English template; ``params`` fill in its ``{placeholders}`` (a
    :class:`Plural` is said in the answer's language too). ``.message`` is the English sentence.
    """

    def __init__(
        self, status: int, code: str, message: str | Plural, *, headers: dict[str, str] | None = None,
        params: dict[str, Any] | None = None, **detail: Any,
    ) -> None:
        self.template, self.params = message, params or {}
        english = _said(translator("en"), message, self.params)
        super().__init__(english)
        self.status, self.code, self.message, self.detail = status, code, english, detail
        self.headers = headers or {}

    def response(self) -> tuple[dict[str, Any], int, dict[str, str]]:
        tr = translator_now()
        detail = dict(self.detail)
        if "fields" in detail:
            detail["fields"] = translated_fields(detail["fields"], tr)
        return {"error": self.code, "message": _said(tr, self.template, self.params), **detail}, self.status, \
            self.headers


def _said(tr: Translator, template: str | Plural, params: dict[str, Any]) -> str:
    values = {name: value.said(tr) if hasattr(value, "said") else value for name, value in params.items()}
    if isinstance(template, Plural):
        return tr.ngettext(template.singular, template.plural, template.count, **values)
    return tr.gettext(template, **values)


def invalid(message: str, fields: dict[str, Any] | None = None, **params: Any) -> ApiError:
    return ApiError(400, "INVALID_REQUEST", message, params=params, fields=fields or {})


_NO_SUCH = {"match": N_("There is no such match."), "player": N_("There is no such player.")}


def not_found(what: str = "match") -> ApiError:
    return ApiError(404, "NOT_FOUND", _NO_SUCH[what])


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
}


def answer(error: ApplicationError | RuleError) -> ApiError:
    """The HTTP answer to a use case's refusal: an application error, or a rule of the game (409)."""
    if isinstance(error, RuleError):
        return ApiError(409, error.code.value, error.template, params=error.params)
    if isinstance(error, CustomTermsError):
        return ApiError(409, "CUSTOM_TERMS", _CUSTOM_TERMS, params={"terms": _Terms(error),
                                                                   "accept": '{"accept_custom": true}'})
    if isinstance(error, VersionConflictError):
        return ApiError(412, "VERSION_CONFLICT", "The match moved on: you acted on version {expected}, it is at "
                        "{actual}.", params={"expected": error.expected, "actual": error.actual},
                        version=error.actual)
    status, code, message = _ANSWERS[type(error)]
    return ApiError(status, code, message)


_CUSTOM_TERMS = N_("The creator of this match chose {terms}, so they may know your cards and it never counts on "
                   "the scoreboard; join with {accept} to play it anyway.")


@dataclass(frozen=True)
class _Terms:
    """What the creator of a custom match chose, said in the answer's language."""

    error: CustomTermsError

    def said(self, tr: Translator) -> str:
        decks, scores = self.error.decks, self.error.start_scores
        chosen = []
        if decks:
            chosen.append(tr.ngettext("the order of the cards of round {count}",
                                      "the order of the cards of rounds 1-{count}", decks))
        if scores:
            chosen.append(tr.gettext("the starting scores {a}-{b}", a=scores[0], b=scores[1]))
        if len(chosen) == 2:
            return tr.gettext("{first} and {second}", first=chosen[0], second=chosen[1])
        return chosen[0] if chosen else tr.gettext("the terms of this match")


# What a player reads when an abuse limit refuses them, by the limit's name.
_LIMITED = {
    "registrations": N_("Too many players were registered from your address lately; try again in {wait}."),
    "streams": N_("Too many live streams are open from your address; close one, or try again in {wait}."),
    "matches": N_("You have created too many matches lately; try again in {wait}."),
    "waiting_matches": Plural("You already have {count} match waiting for an opponent; cancel it, or wait until "
                              "someone joins.",
                              "You already have {count} matches waiting for an opponent; cancel one, or wait until "
                              "someone joins.", 0),
    "actions": N_("You are acting too fast; try again in {wait}."),
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


# Werkzeug's HTTP errors, renamed to this API's codes and said in this API's sentences.
_HTTP_CODES = {
    400: "INVALID_REQUEST", 401: "UNAUTHENTICATED", 404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED",
    408: "REQUEST_TIMEOUT", 413: "BODY_TOO_LARGE", 415: "INVALID_REQUEST", 422: "INVALID_REQUEST",
}
_HTTP_MESSAGES = {
    400: N_("The request is not valid."),
    401: N_("This call needs 'Authorization: Bearer <token>'."),
    404: N_("There is nothing at this address."),
    405: N_("This address does not accept this method."),
    408: N_("The request took too long to arrive."),
    413: N_("The request body is too large."),
    415: N_("The request body must be JSON."),
    422: N_("The request is not valid."),
}


def _from_http(error: HTTPException) -> tuple[dict[str, Any], int, dict[str, str]]:
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    if "messages" in data:  # webargs/marshmallow validation of a body or query
        fields = _flatten(data["messages"])
        return invalid("The request is not valid: see fields.", fields).response()[0], 400, {}
    if status in _HTTP_MESSAGES:
        return ApiError(status, _HTTP_CODES[status], _HTTP_MESSAGES[status]).response()
    return {"error": "HTTP_ERROR", "message": error.description or error.name}, status, {}


def _flatten(messages: dict[str, Any]) -> dict[str, Any]:
    """webargs nests errors by location (json, query, headers): clients want the fields."""
    fields: dict[str, Any] = {}
    for location in messages.values():
        if isinstance(location, dict):
            fields.update(location)
    return fields


def register(app: Flask) -> None:
    """Install the handlers so that no outcome escapes the JSON error shape, and the language hook."""
    app.register_error_handler(ApiError, ApiError.response)
    app.register_error_handler(ApplicationError, _refused)
    app.register_error_handler(RuleError, _refused)
    app.register_error_handler(SetupError, _bad_setup)
    app.register_error_handler(LimitedError, lambda error: limited(error).response())
    app.register_error_handler(HTTPException, _from_http)
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
# APPEND_ACK=replica, no replica confirmed in time; MATCH_UNREADABLE: a damaged stream (parked too).
_FAILURES: dict[type[Exception], tuple[str, str, str | None, str]] = {
    RedisError: ("STORE_UNAVAILABLE", N_("The game store is unreachable; try again shortly."), "1", "warning"),
    NotDurableError: ("NOT_DURABLE", N_("Your move may not have been saved safely; retry it with the same "
                                        "Idempotency-Key to learn whether it was."), "1", "warning"),
    **dict.fromkeys((CorruptEventError, UnknownEventError, GapError), (
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
