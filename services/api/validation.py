"""A flask-smorest Blueprint whose argument parser answers 400, the status API.md gives bad input."""
from __future__ import annotations

from flask_smorest import Blueprint
from webargs.flaskparser import FlaskParser


class _Parser(FlaskParser):
    DEFAULT_VALIDATION_STATUS = 400  # flask-smorest's default is 422


class ApiBlueprint(Blueprint):
    ARGUMENTS_PARSER = _Parser()
