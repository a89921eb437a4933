"""JSON responses: orjson bytes, and the match view as the command side sees it."""
from __future__ import annotations

from typing import Any

import orjson
from flask import Response

from shared.rules import MatchState, Seat, view


def json_response(body: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(body), status=status, mimetype="application/json")


def raw_json_response(body: bytes, status: int = 200) -> Response:
    return Response(body, status=status, mimetype="application/json")


def match_view(match_id: str, version: int, state: MatchState, seat: Seat | None) -> dict[str, Any]:
    """The API's match view of ``state`` for ``seat`` (None: a spectator)."""
    return {"id": match_id, "version": version, **view(state, seat)}
