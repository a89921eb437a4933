"""``/docs``: the Swagger UI page, served offline and locked down like the table.

The browser table keeps a player's token in ``localStorage`` on this same origin, so the
docs page gets a strict Content-Security-Policy too: its one inline script is allowed by
its SHA-256 (computed from the page as rendered), nothing else inline runs, and no other
site may frame it.
"""
from __future__ import annotations

import base64
import hashlib
import re

from flask import Flask, Response, request, send_from_directory
from swagger_ui_bundle import swagger_ui_path

DOCS_PATH = "/docs"
ASSETS_URL = "/docs/assets/"
_INLINE_SCRIPT = re.compile(rb"<script>(.*?)</script>", re.DOTALL)
# Swagger UI sets style attributes from its script, and draws icons as data: images.
_POLICY = ("default-src 'self'; script-src 'self' {hashes}; style-src 'self' 'unsafe-inline'; "
           "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
           "form-action 'none'; frame-ancestors 'none'")


def serve_docs(app: Flask) -> None:
    """Serve Swagger UI's files from the installed wheel and give the page its policy."""
    app.add_url_rule(f"{ASSETS_URL}<path:filename>", "docs_assets",
                     lambda filename: send_from_directory(swagger_ui_path, filename))
    app.after_request(_lock_down_docs)


def _lock_down_docs(response: Response) -> Response:
    if request.path.rstrip("/") != DOCS_PATH or response.mimetype != "text/html":
        return response
    hashes = " ".join(f"'sha256-{_digest(script)}'" for script in _INLINE_SCRIPT.findall(response.get_data()))
    response.headers["Content-Security-Policy"] = _POLICY.format(hashes=hashes)
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "same-origin"
    return response


def _digest(script: bytes) -> str:
    return base64.b64encode(hashlib.sha256(script).digest()).decode()
