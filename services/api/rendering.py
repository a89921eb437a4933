"""JSON responses as orjson bytes; match views are built as the projector builds them."""
from __future__ import annotations

from typing import Any

import orjson
from flask import Response

from shared.readmodels.projection import match_view

__all__ = ["json_response", "match_view", "raw_json_response"]


def json_response(body: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(body), status=status, mimetype="application/json")


def raw_json_response(body: bytes, status: int = 200) -> Response:
    return Response(body, status=status, mimetype="application/json")

