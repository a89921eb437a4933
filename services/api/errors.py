"""Every error the API answers: one JSON shape, a stable code, one human sentence.

The use cases' application errors and the rules' refusals are mapped to HTTP here, and
nowhere else.
"""
from __future__ import annotations

import math
from typing import Any

from flask import Flask, current_app
from redis.exceptions import RedisError
from werkzeug.exceptions import HTTPException

from shared.codec import UnknownEventError
from shared.eventstore import CorruptEventError, NotDurableError
from shared.fold import GapError
from shared.limits import LimitedError
from shared.rules import RuleError, SetupError

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
from .limits import headers


class ApiError(Exception):
    """An error answered as ``{"error": code, "message": ..., **detail}`` with ``status``."""

    def __init__(
        self, status: int, code: str, message: str, *, headers: dict[str, str] | None = None, **detail: Any,
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.detail = status, code, message, detail
        self.headers = headers or {}

    def response(self) -> tuple[dict[str, Any], int, dict[str, str]]:
        return {"error": self.code, "message": self.message, **self.detail}, self.status, self.headers


def invalid(message: str, fields: dict[str, Any] | None = None) -> ApiError:
    return ApiError(400, "INVALID_REQUEST", message, fields=fields or {})


def not_found(what: str = "match") -> ApiError:
    return ApiError(404, "NOT_FOUND", f"There is no such {what}.")


# Each application error's answer: status, stable code, and the sentence a player reads.
_ANSWERS: dict[type[ApplicationError], tuple[int, str, str]] = {
    MatchNotFoundError: (404, "NOT_FOUND", "There is no such match."),
    NotAPlayerError: (403, "NOT_A_PLAYER", "You are not seated in this match."),
    NotTheCreatorError: (403, "NOT_A_PLAYER", "Only the player who created this match may cancel it."),
    AlreadySeatedError: (409, "ALREADY_SEATED", "You cannot play against yourself."),
    KeyReusedError: (422, "IDEMPOTENCY_KEY_REUSED", "This Idempotency-Key was already used with another request."),
    KeyInUseError: (409, "IDEMPOTENCY_KEY_REUSED", "This Idempotency-Key is already in use; retry it."),
    BusyError: (503, "BUSY", "The match is too busy right now; try again."),
    SeedUnavailableError: (409, "SEED_UNAVAILABLE",
                           "This server does not hold the seed this match deals from; it cannot be played here."),
}


def answer(error: ApplicationError | RuleError) -> ApiError:
    """The HTTP answer to a use case's refusal: an application error, or a rule of the game (409)."""
    if isinstance(error, RuleError):
        return ApiError(409, error.code.value, error.message)
    if isinstance(error, CustomTermsError):
        return ApiError(409, "CUSTOM_TERMS", _custom_terms(error))
    if isinstance(error, VersionConflictError):
        message = f"The match moved on: you acted on version {error.expected}, it is at {error.actual}."
        return ApiError(412, "VERSION_CONFLICT", message, version=error.actual)
    status, code, message = _ANSWERS[type(error)]
    return ApiError(status, code, message)


def _custom_terms(error: CustomTermsError) -> str:
    chosen = []
    if error.decks:
        rounds = "round 1" if error.decks == 1 else f"rounds 1-{error.decks}"
        chosen.append(f"the order of the cards of {rounds}")
    if error.start_scores:
        chosen.append(f"the starting scores {error.start_scores[0]}-{error.start_scores[1]}")
    terms = " and ".join(chosen) or "the terms of this match"
    return (f"The creator of this match chose {terms}, so they may know your cards and it never counts on "
            'the scoreboard; join with {"accept_custom": true} to play it anyway.')


# What a player reads when an abuse limit refuses them, by the limit's name.
_LIMITED = {
    "registrations": "Too many players were registered from your address lately; try again in {wait}.",
    "streams": "Too many live streams are open from your address; close one, or try again in {wait}.",
    "matches": "You have created too many matches lately; try again in {wait}.",
    "waiting_matches": "You already have {count} matches waiting for an opponent; cancel one, or wait until "
                       "someone joins.",
    "actions": "You are acting too fast; try again in {wait}.",
}


def limited(error: LimitedError) -> ApiError:
    """429 ``RATE_LIMITED``: which limit (``limit``), when to come back, and the RateLimit headers."""
    verdict = error.verdict
    message = _LIMITED[verdict.limit.name].format(wait=_in_words(verdict.reset_seconds), count=verdict.limit.count)
    return ApiError(429, "RATE_LIMITED", message, headers=headers(verdict), limit=verdict.limit.name)


def _in_words(seconds: int) -> str:
    if seconds < 60:
        return "1 second" if seconds == 1 else f"{seconds} seconds"
    minutes = math.ceil(seconds / 60)
    return "1 minute" if minutes == 1 else f"{minutes} minutes"


# Werkzeug's HTTP errors, renamed to this API's codes.
_HTTP_CODES = {
    400: "INVALID_REQUEST", 401: "UNAUTHENTICATED", 404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED",
    413: "BODY_TOO_LARGE", 415: "INVALID_REQUEST", 422: "INVALID_REQUEST",
}


def _from_http(error: HTTPException) -> tuple[dict[str, Any], int]:
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    if "messages" in data:  # webargs/marshmallow validation of a body or query
        fields = _flatten(data["messages"])
        return invalid("The request is not valid: see fields.", fields).response()[0], 400
    code = _HTTP_CODES.get(status, "HTTP_ERROR")
    if status == 413:
        message = "The request body is too large."
    else:
        message = error.description or error.name
    return {"error": code, "message": message}, status


def _flatten(messages: dict[str, Any]) -> dict[str, Any]:
    """webargs nests errors by location (json, query, headers): clients want the fields."""
    fields: dict[str, Any] = {}
    for location in messages.values():
        if isinstance(location, dict):
            fields.update(location)
    return fields


def register(app: Flask) -> None:
    """Install the handlers so that no outcome escapes the JSON error shape."""
    app.register_error_handler(ApiError, ApiError.response)
    app.register_error_handler(ApplicationError, _refused)
    app.register_error_handler(RuleError, _refused)
    app.register_error_handler(SetupError, _bad_setup)
    app.register_error_handler(LimitedError, lambda error: limited(error).response())
    app.register_error_handler(HTTPException, _from_http)
    app.register_error_handler(RedisError, _store_down)
    app.register_error_handler(NotDurableError, _not_durable)
    for damaged in (CorruptEventError, UnknownEventError, GapError):
        app.register_error_handler(damaged, _unreadable)
    app.register_error_handler(RecursionError, _too_deep)
    app.register_error_handler(Exception, _unexpected)


def _refused(error: ApplicationError | RuleError) -> tuple[dict[str, Any], int, dict[str, str]]:
    return answer(error).response()


def _bad_setup(error: SetupError) -> tuple[dict[str, Any], int, dict[str, str]]:
    return invalid(error.message, {error.field: [error.message]}).response()


def _store_down(error: RedisError) -> tuple[dict[str, Any], int, dict[str, str]]:
    current_app.logger.warning("redis unavailable: %s", error)
    body = {"error": "STORE_UNAVAILABLE", "message": "The game store is unreachable; try again shortly."}
    return body, 503, {"Retry-After": "1"}


def _not_durable(error: NotDurableError) -> tuple[dict[str, Any], int, dict[str, str]]:
    # APPEND_ACK=replica: the master has the events, no replica confirmed them in time.
    current_app.logger.warning("append not confirmed by a replica: %s", error)
    body = {"error": "NOT_DURABLE", "message": "Your move may not have been saved safely; retry it with the same "
            "Idempotency-Key to learn whether it was."}
    return body, 503, {"Retry-After": "1"}


def _unreadable(error: Exception) -> tuple[dict[str, Any], int]:
    # A damaged stream (the projector parks such a match too): say so, never a bare 500.
    current_app.logger.error("unreadable match stream: %s", error)
    body = {"error": "MATCH_UNREADABLE", "message": "This match's record is damaged; an operator must repair it."}
    return body, 503


def _too_deep(error: RecursionError) -> tuple[dict[str, Any], int, dict[str, str]]:
    return invalid("The request body is nested too deeply.").response()


def _unexpected(error: Exception) -> tuple[dict[str, Any], int]:
    current_app.logger.exception("unexpected error")
    return {"error": "INTERNAL", "message": "Something went wrong on our side."}, 500
