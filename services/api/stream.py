"""Live updates: ``GET /matches/{id}/stream``, the caller's match view as server-sent events.

An open stream holds no thread and no Redis connection of its own: under gunicorn's
gevent worker it is a greenlet waiting on its match's :class:`~.feeds.MatchFeed`, which
the process's one subscriber wakes at each append (:mod:`.fanout`). It sends the current
view at once, then the caller's new view at each change: the match is read from the
store once per process and each audience's view rendered once, whoever asks first.
Views are whole states, not deltas, so a reconnecting client (``Last-Event-ID``) only
needs the current view, and a slow viewer skips to the latest. The stream ends once the
match is over (finished or cancelled), or when the client has gone: a write fails then
(a view or the keep-alive comment; the first write after a drop may still succeed, so it
takes up to two keep-alive periods).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import redis
from flask import Response, current_app
from marshmallow import Schema, fields, validate

from shared.fold import FoldedMatch
from shared.rules import Seat

from .api_error import ApiError, not_found
from .app import latest
from .auth import credential, stream_caller
from .client_address import client_address
from .fanout import Hub
from .feeds import MatchFeed
from .players import Player
from .private_matches import check_state
from .schemas import ErrorSchema, position
from .smorest import ApiBlueprint
from .wiring import services

blp = ApiBlueprint("stream", __name__, description="Live match views as server-sent events.")

KEEP_ALIVE_SECONDS = 15.0  # a comment this often: proxies keep the connection, dead clients are noticed
RETRY_MS = 2000  # how long a browser waits before reconnecting a dropped stream


class StreamQuerySchema(Schema):
    ticket = fields.String(
        validate=validate.Length(min=1, max=256),
        metadata={"description": "A stream ticket (`POST /stream-tickets`), for clients that cannot send headers "
                                 "(a browser's EventSource): it opens one stream, once. The Authorization header "
                                 "wins when both are sent."},
    )
    token = fields.String(
        metadata={"description": "Refused (401 `UNAUTHENTICATED`): a bearer token never goes in a URL. Send a ticket.",
                  "deprecated": True},
    )


class StreamHeadersSchema(Schema):
    last_event_id = position(
        data_key="Last-Event-ID",
        metadata={"description": "The last version received: a reconnect. Sends the current view at once."},
    )


@blp.route("/matches/<id:match_id>/stream", methods=["GET"])
@blp.arguments(StreamQuerySchema, location="query")
@blp.arguments(StreamHeadersSchema, location="headers")
@blp.response(200, content_type="text/event-stream",
              description="`event: view`, `id: <version>`, `data: <match view JSON>`, first the current view, then "
                          "one per change; `: keep-alive` comments every 15 s; ends once the match is over.")
@blp.alt_response(401, schema=ErrorSchema,
                  description="`UNAUTHENTICATED`: a token of no player, a ticket unknown, used or expired, "
                              "or a token in the URL.")
@blp.alt_response(204, description="Resumed (Last-Event-ID) a match that is over, already seen to its end: "
                                   "nothing more will come, and browsers stop reconnecting.")
@blp.alt_response(503, schema=ErrorSchema,
                  description="`STREAMS_BUSY`: this server process holds `MAX_STREAMS` streams already; "
                              "retry after `Retry-After` seconds.")
@blp.alt_response(429, schema=ErrorSchema,
                  description="`RATE_LIMITED` (`limit`: `streams`): this client address holds `STREAMS_PER_CLIENT` "
                              "streams open already; retry after `Retry-After` seconds.")
def stream(query: dict, headers: dict, match_id: str) -> Response:
    """The caller's view of the match, live: the seat of the token's player, else the spectator's."""
    ctx = services()
    player = stream_caller(query)
    watched = ctx.feeds.matches.get(match_id)  # other viewers here: no read, and the view rendered already
    match = (watched and watched.known()) or latest(ctx.matches, match_id)
    if match.version == 0:
        raise not_found()
    check_state(match.state, player)  # a private match that waits: 404 to all but its creator
    if match.state.status.over and headers.get("last_event_id", -1) >= match.version:
        return Response(status=204)
    keep_alive, logger = ctx.keep_alive_seconds, current_app.logger
    return sse_response(lambda: view_messages(match, player, ctx.feeds.matches, logger, keep_alive))


def sse_response(messages: Callable[[], Iterator[bytes]]) -> Response:
    """An event stream of ``messages()``, holding one of the process's stream slots until it ends.

    Every live stream (a match's, a player's) counts against the one cap: past it, 503
    ``STREAMS_BUSY`` at once, and ``messages`` is never called. It counts against its
    client address's share too (``STREAMS_PER_CLIENT``, in Redis): past it, 429.
    """
    ctx = services()
    lease = ctx.limits.stream(client_address())
    give_back = ctx.streams.take()
    if give_back is None:
        lease.give_back()
        raise ApiError(503, "STREAMS_BUSY", "This server holds as many live streams as it can; try again shortly.",
                       headers={"Retry-After": str(RETRY_MS // 1000)})
    try:
        chunks = _until_revoked(messages(), credential(), ctx.revoked)
        response = lease.hold(Response(chunks, mimetype="text/event-stream"))
    except BaseException:
        give_back()
        lease.give_back()
        raise
    response.call_on_close(give_back)  # the stream ended, or its client left
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"  # nginx would otherwise hold the events back
    return response


def _until_revoked(chunks: Iterator[bytes], token_hash: str | None, revoked: Callable[[str], bool]) -> Iterator[bytes]:
    """``chunks`` until the token the stream was opened with is revoked: checked before each
    one, and one comes at least every keep-alive, so a revoked stream ends within that."""
    if token_hash is None:  # a spectator's: nothing to revoke
        yield from chunks
        return
    try:
        for chunk in chunks:
            if revoked(token_hash):
                return
            yield chunk
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()  # the stream's own cleanup (its feed forgets it) runs now, not at collection


def view_messages(
    match: FoldedMatch, player: Player | None, feeds: Hub[MatchFeed], logger: Any,
    keep_alive: float = KEEP_ALIVE_SECONDS,
) -> Iterator[bytes]:
    """The SSE byte chunks of one stream, from ``match`` until the match is over.

    The stream watches the match's feed only while it runs: however it ends (match over,
    client gone, Redis error), the feed forgets it, and with its last viewer the match.
    """
    with feeds.watching(match.match_id) as feed:
        try:
            current = feed.current()  # the process's, if another viewer read it: its message is rendered already
            match = current if current.version >= match.version else match
            sent = match.version
            yield f"retry: {RETRY_MS}\n".encode() + feed.message(match, _seat(match, player))
            while not match.state.status.over:
                changed = feed.changed  # before the look: a change after it still wakes us
                match = feed.current()
                if match.version > sent:
                    sent = match.version
                    yield feed.message(match, _seat(match, player))
                elif not changed.wait(keep_alive):
                    feed.look_again_after(keep_alive)  # one read per match, should a wake-up be lost
                    yield b": keep-alive\n\n"
        except redis.RedisError as error:
            # Ending the stream is the honest answer: the client reconnects after RETRY_MS.
            logger.warning("stream of %s ended by redis: %s", match.match_id, error)


def _seat(match: FoldedMatch, player: Player | None) -> Seat | None:
    return match.state.seat_of(player.id) if player else None  # again each time: a player may join
