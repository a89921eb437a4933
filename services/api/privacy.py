"""Answers that depend on who asks stay out of every cache but the caller's own.

A seat's view carries its hand, and the same URL serves a spectator the view without it,
under the same ``ETag`` (``"<version>"``, as API.md says): a shared cache that stored the
one could serve it for the other. So every answer says it varies with ``Authorization``,
and every answer to a caller with credentials (a bearer token, a stream ticket, an invite) or carrying
a new secret (a registration's token) is ``Cache-Control: private, no-store``. One rule for
every endpoint, decided here after the view ran, rather than a header each view must remember.
"""
from __future__ import annotations

from flask import Response, request

INVITE_HEADER = "Invite"  # a private waiting match's code, sent by the friend it was meant for

# Answers with a secret in them to a caller who sent none (the others send credentials).
_SECRET_ANSWERS = frozenset({"commands.register_player"})
_CREDENTIAL_PARAMETERS = ("ticket", "token")  # a stream's, for clients that cannot send headers


def mark_private(response: Response) -> Response:
    """After every request: ``Vary: Authorization``, and no storing an answer that is the caller's own."""
    response.vary.add("Authorization")  # added to any Vary already there (Accept-Language)
    response.vary.add(INVITE_HEADER)  # a private match's view answers the invite's holder alone
    if personal():
        response.headers["Cache-Control"] = "private, no-store"
    return response


def personal() -> bool:
    """Whether this request's answer is its caller's own: it came with credentials, or carries a secret."""
    return ("Authorization" in request.headers or INVITE_HEADER in request.headers
            or request.endpoint in _SECRET_ANSWERS
            or any(name in request.args for name in _CREDENTIAL_PARAMETERS))
