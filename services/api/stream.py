"""Live updates: ``GET /matches/{id}/stream``, the caller's match view as server-sent events.

Each open stream holds one gunicorn thread and one Redis connection of its own (never a
pooled one: a blocking read would starve the requests sharing the pool). It sends the
current view at once, then waits on the match's stream with ``XREAD BLOCK`` from the
last version it sent, folds whatever was appended into the state and sends the caller's
new view. Views are whole states, not deltas, so a reconnecting client (``Last-Event-ID``)
only needs the current view. The stream ends once the match is over (finished or
cancelled), or when the client has gone: a write fails then (a view or the keep-alive
comment; the first write after a drop still succeeds, so it takes up to two keep-alive
periods).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import orjson
import redis
from flask import Response, current_app
from marshmallow import Schema, fields, validate

from shared import keys
from shared.eventstore import RedisEventStore
from shared.fold import FoldedMatch, fold
from shared.readmodels.projection import match_view
from shared.rules import MatchState, Seat

from .addresses import client_address
from .app import latest
from .auth import optional_player, player_of
from .context import services
from .errors import ApiError, not_found
from .players import Player
from .schemas import ErrorSchema
from .smorest import ApiBlueprint

blp = ApiBlueprint("stream", __name__, description="Live match views as server-sent events.")

KEEP_ALIVE_SECONDS = 15.0  # a comment this often: proxies keep the connection, dead clients are noticed
RETRY_MS = 2000  # how long a browser waits before reconnecting a dropped stream
CLIENT_NAME = "truc-stream"  # CLIENT LIST shows each open stream's connection under this name


class StreamQuerySchema(Schema):
    token = fields.String(
        validate=validate.Length(min=1, max=256),
        metadata={"description": "The bearer token, for clients that cannot send headers (browser EventSource). "
                                 "The Authorization header wins when both are sent."},
    )


class StreamHeadersSchema(Schema):
    last_event_id = fields.Integer(
        data_key="Last-Event-ID", validate=validate.Range(min=0),
        metadata={"description": "The last version received: a reconnect. Sends the current view at once."},
    )


@blp.route("/matches/<id:match_id>/stream", methods=["GET"])
@blp.arguments(StreamQuerySchema, location="query")
@blp.arguments(StreamHeadersSchema, location="headers")
@blp.response(200, content_type="text/event-stream",
              description="`event: view`, `id: <version>`, `data: <match view JSON>`, first the current view, then "
                          "one per change; `: keep-alive` comments every 15 s; ends once the match is over.")
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
    player = caller(query.get("token"))
    match = latest(ctx.matches, match_id)
    version, state = match.version, match.state
    if version == 0:
        raise not_found()
    if state.status.over and headers.get("last_event_id", -1) >= version:
        return Response(status=204)
    open_connection = connection_opener(ctx.redis, match_id)
    return sse_response(lambda: view_messages(match_id, version, state, player, open_connection, current_app.logger))


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
        response = lease.hold(Response(messages(), mimetype="text/event-stream"))
    except BaseException:
        give_back()
        lease.give_back()
        raise
    response.call_on_close(give_back)  # the stream ended, or its client left
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"  # nginx would otherwise hold the events back
    return response


def caller(query_token: str | None) -> Player | None:
    """The calling player from the Authorization header, else from ``?token=``; 401 if unknown."""
    player = optional_player()
    if player is not None or query_token is None:
        return player
    return player_of(query_token)


def view_messages(
    match_id: str, version: int, state: MatchState, player: Player | None,
    open_connection: Callable[[float], Any], logger: Any, keep_alive: float = KEEP_ALIVE_SECONDS,
) -> Iterator[bytes]:
    """The SSE byte chunks of one stream, from ``state`` at ``version`` until the match is over.

    The Redis connection is opened on the first read and closed however the stream ends
    (match over, client gone, Redis error), so a stream that never starts holds none.
    """
    yield f"retry: {RETRY_MS}\n".encode() + _view_message(match_id, version, state, player)
    if state.status.over:
        return
    connection = None
    try:
        connection = open_connection(keep_alive + 5)  # the socket outlives one blocking read
        store = RedisEventStore(connection)
        stream_key = keys.match_events(match_id)
        while True:
            woke = connection.xread({stream_key: f"{version}-0"}, count=1, block=int(keep_alive * 1000))
            if not woke:
                yield b": keep-alive\n\n"
                continue
            # XREAD only wakes us; the store reads (and decodes) everything appended since.
            folded = fold(FoldedMatch(match_id, version, state), store.read(match_id, after=version))
            state, version = folded.state, folded.version
            yield _view_message(match_id, version, state, player)
            if state.status.over:
                return
    except redis.RedisError as error:
        # Ending the stream is the honest answer: the client reconnects after RETRY_MS.
        logger.warning("stream of %s ended by redis: %s", match_id, error)
    finally:
        if connection is not None:
            connection.close()


def _view_message(match_id: str, version: int, state: MatchState, player: Player | None) -> bytes:
    seat: Seat | None = state.seat_of(player.id) if player else None  # again each time: a player may join
    data = orjson.dumps(match_view(match_id, version, state, seat))  # one line: SSE data may not hold newlines
    return b"event: view\nid: %d\ndata: %s\n\n" % (version, data)


def connection_opener(shared: Any, match_id: str) -> Callable[[float], redis.Redis]:
    """Opens a client of its own on the Redis ``shared`` uses (on a cluster: the match's node)."""
    return key_connection_opener(shared, keys.match_events(match_id), CLIENT_NAME)


def key_connection_opener(shared: Any, key: str, client_name: str) -> Callable[[float], redis.Redis]:
    """Opens a client of its own, named ``client_name``, on the Redis that serves ``key``."""
    if hasattr(shared, "get_node_from_key"):  # RedisCluster: the node that serves the key's slot
        shared = shared.get_node_from_key(key).redis_connection
    pool = shared.connection_pool

    def open_connection(read_timeout: float) -> redis.Redis:
        settings = {**pool.connection_kwargs, "socket_timeout": read_timeout, "client_name": client_name}
        own_pool = redis.ConnectionPool(connection_class=pool.connection_class, max_connections=1, **settings)
        return redis.Redis.from_pool(own_pool)  # closing the client closes its pool and connection

    return open_connection
