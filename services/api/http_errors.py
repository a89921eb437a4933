"""Werkzeug's own HTTP errors (a body that is not JSON, an unknown address, a method not
allowed, a body too large, a failed validation) answered in this API's codes and sentences.

They come from the framework rather than from a use case: :mod:`.error_handlers` answers the
use cases' refusals and the rules', this module everything that never reached a view.
"""
from __future__ import annotations

from typing import Any

from flask import Flask
from werkzeug.exceptions import HTTPException

from shared.rules.rule_errors import N_

from .api_error import ApiError, invalid

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


def register(app: Flask) -> None:
    """Answer every HTTPException in the API's JSON error shape."""
    app.register_error_handler(HTTPException, _from_http)


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
