"""A flask-smorest Blueprint whose argument parser answers 400, the status API.md gives bad input."""
from __future__ import annotations

from flask_smorest import Blueprint
from webargs.flaskparser import FlaskParser
from werkzeug.routing import BaseConverter


class _Parser(FlaskParser):
    DEFAULT_VALIDATION_STATUS = 400  # flask-smorest's default is 422


class ApiBlueprint(Blueprint):
    ARGUMENTS_PARSER = _Parser()


class IdConverter(BaseConverter):
    """Match and player ids in paths: anything else is simply not found (404), never a key."""

    regex = r"[A-Za-z0-9_-]{1,64}"


def id_param_schema(converter: BaseConverter) -> dict:
    return {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"}
