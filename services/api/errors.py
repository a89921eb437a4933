"""Every error the API answers: one JSON shape, a stable code, one human sentence."""
from __future__ import annotations

from typing import Any

from flask import Flask, current_app
from redis.exceptions import RedisError
from werkzeug.exceptions import HTTPException

from shared.codec import UnknownEventError
from shared.eventstore import CorruptEventError
from shared.rules import RuleError, SetupError


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

    @app.errorhandler(ApiError)
    def api_error(error: ApiError):
        return error.response()

    @app.errorhandler(RuleError)
    def rule_error(error: RuleError):
        return {"error": error.code.value, "message": error.message}, 409

    @app.errorhandler(SetupError)
    def setup_error(error: SetupError):
        return invalid(error.message, {error.field: [error.message]}).response()

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException):
        return _from_http(error)

    @app.errorhandler(RedisError)
    def store_down(error: RedisError):
        current_app.logger.warning("redis unavailable: %s", error)
        body = {"error": "STORE_UNAVAILABLE", "message": "The game store is unreachable; try again shortly."}
        return body, 503, {"Retry-After": "1"}

    @app.errorhandler(CorruptEventError)
    @app.errorhandler(UnknownEventError)
    def unreadable(error: Exception):
        # A damaged stream (the projector parks such a match too): say so, never a bare 500.
        current_app.logger.error("unreadable match stream: %s", error)
        body = {"error": "MATCH_UNREADABLE", "message": "This match's record is damaged; an operator must repair it."}
        return body, 503

    @app.errorhandler(RecursionError)
    def too_deep(error: RecursionError):
        return invalid("The request body is nested too deeply.").response()

    @app.errorhandler(Exception)
    def unexpected(error: Exception):
        current_app.logger.exception("unexpected error")
        return {"error": "INTERNAL", "message": "Something went wrong on our side."}, 500
