"""Stream tickets: what a browser's EventSource sends in its URL instead of the bearer token.

An EventSource cannot set headers, so a stream's credentials must ride in its URL, where
proxies log them and the browser's history keeps them. A ticket is worth little there: it
opens one stream, once, within a minute, and says nothing else. Only its hash is stored,
one key per ticket (one slot on a cluster), with Redis's own expiry; using it deletes it in
the same command (GETDEL), so of two streams racing on one ticket only one opens. A ticket
is worth what the token it was asked with is worth: it keeps that token's hash, and opens
nothing once the token is revoked (rotated, say) — nor does the stream it opened go on.
"""
from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable
from typing import Any

from shared import keys

TICKET_SECONDS = 60  # long enough to open a stream after asking; short enough to be worthless in a log


class StreamTickets:
    def __init__(self, client: Any, clock: Callable[[], float] = time.time) -> None:
        self._client = client
        self._clock = clock

    def issue(self, player_id: str, token_hash: str) -> tuple[str, float]:
        """A new ticket for ``player_id``, asked with the token of ``token_hash``, and when it expires (epoch s)."""
        ticket = secrets.token_urlsafe(24)
        expires = self._clock() + TICKET_SECONDS
        self._client.set(keys.stream_ticket(_ticket_hash(ticket)), f"{player_id} {token_hash}", ex=TICKET_SECONDS)
        return ticket, expires

    def redeem(self, ticket: str) -> tuple[str, str] | None:
        """The player id of ``ticket`` and its token's hash, the ticket used up by this; None if it is
        unknown, used or expired, or its token no longer belongs to its player."""
        held = self._client.getdel(keys.stream_ticket(_ticket_hash(ticket)))
        if held is None:
            return None
        player_id, _, token_hash = held.decode().partition(" ")
        owner = self._client.get(keys.player_token(token_hash))
        return (player_id, token_hash) if owner is not None and owner.decode() == player_id else None


def _ticket_hash(ticket: str) -> str:
    return hashlib.sha256(ticket.encode()).hexdigest()
