"""flask-smorest as this API uses it: bad input answers 400 (API.md), errors are documented as answered."""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from flask import request
from flask_smorest import Api, Blueprint
from webargs.flaskparser import FlaskParser
from werkzeug.routing import BaseConverter

from shared.keys import ID_PATTERN

from .schemas import ErrorSchema


class _Parser(FlaskParser):
    DEFAULT_VALIDATION_STATUS = 400  # flask-smorest's default is 422


class ApiBlueprint(Blueprint):
    ARGUMENTS_PARSER = _Parser()

    def arguments_fast(self, schema: type, plainly_valid: Callable[[bytes], dict | None], **options: Any) -> Callable:
        """``arguments(schema)`` (documented, and loading as it does) with a cheaper reader tried first:
        a JSON body that ``plainly_valid`` returns goes to the view as it is; for None (anything it is not
        sure of) the schema loads the body and words its errors, as without it."""
        documented = self.arguments(schema, **options)

        def decorator(view: Callable) -> Callable:
            loaded = documented(view)

            @functools.wraps(loaded)
            def read_fast_first(*args: Any, **kwargs: Any) -> Any:
                body = plainly_valid(request.get_data(cache=True)) if request.mimetype == "application/json" \
                    else None
                return loaded(*args, **kwargs) if body is None else view(body, *args, **kwargs)
            return read_fast_first
        return decorator


class DocumentedApi(Api):
    """flask-smorest's Api, documenting errors in the shape api_error.py answers (not its own)."""

    ERROR_SCHEMA = ErrorSchema


class IdConverter(BaseConverter):
    """Match and player ids in paths: anything else is simply not found (404), never a key."""

    regex = ID_PATTERN


def id_param_schema(converter: BaseConverter) -> dict:
    return {"type": "string", "pattern": f"^{IdConverter.regex}$"}
