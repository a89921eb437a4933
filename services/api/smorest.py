"""flask-smorest as this API uses it: bad input answers 400 (API.md), errors are documented as answered."""
from __future__ import annotations

from flask_smorest import Api, Blueprint
from webargs.flaskparser import FlaskParser
from werkzeug.routing import BaseConverter

from shared.keys import ID_PATTERN

from .schemas import ErrorSchema


class _Parser(FlaskParser):
    DEFAULT_VALIDATION_STATUS = 400  # flask-smorest's default is 422


class ApiBlueprint(Blueprint):
    ARGUMENTS_PARSER = _Parser()


class DocumentedApi(Api):
    """flask-smorest's Api, documenting errors in the shape api_error.py answers (not its own)."""

    ERROR_SCHEMA = ErrorSchema


class IdConverter(BaseConverter):
    """Match and player ids in paths: anything else is simply not found (404), never a key."""

    regex = ID_PATTERN


def id_param_schema(converter: BaseConverter) -> dict:
    return {"type": "string", "pattern": f"^{IdConverter.regex}$"}
