"""The browser table at ``/``: plain static files, no build step.

``/`` serves ``static/index.html``; Flask's own static route serves the rest of
``services/api/static`` under ``/static/``. The page talks to the public API only.
"""
from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, send_from_directory

STATIC = Path(__file__).parent / "static"

blp = Blueprint("table", __name__)

# The page keeps a bearer token in localStorage: nothing but our own files may run in it.
_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


@blp.route("/", methods=["GET"])
def index() -> Response:
    """The table: register, start or join a match, and play it live."""
    response = send_from_directory(STATIC, "index.html", max_age=0)
    response.headers["Content-Security-Policy"] = _CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "same-origin"
    return response
