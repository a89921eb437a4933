"""JSON responses as orjson bytes (views already stored as JSON go out as they are)."""
from __future__ import annotations

from typing import Any

import orjson
from flask import Response


def json_response(body: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(body), status=status, mimetype="application/json")


def raw_json_response(body: bytes, status: int = 200) -> Response:
    return Response(body, status=status, mimetype="application/json")

