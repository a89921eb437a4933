"""The player's own stream: ``GET /players/{id}/stream``, where they are awaited, as server-sent events.

A client with many matches (the bot, a browser with one match open) learns from it where
its decision is wanted, without listing its matches. It reads the player's feed, which
the projector appends to (:mod:`shared.readmodels.player_feeds`): first, at once, a
``turn`` for each playing match that awaits the player now (a scan of the read models),
then every notice told after the feed's position *before* that scan, so nothing told in
between is lost (a notice may come twice: clients take them as hints). Each notice's
``id`` is its feed position (the scan's turns are followed by the position it was taken
at): a client that comes back with ``Last-Event-ID`` reads on from there, and one whose
position the feed no longer covers gets the scan again.

Like a match stream it holds no thread and no Redis connection of its own, only one slot
of the same ``MAX_STREAMS`` cap: it waits on the player's :class:`~.feeds.PlayerFeed`,
which the process's one subscriber wakes whenever the projector tells the player
something, and which reads the notices once for all of the player's streams in the
process. It never ends by itself, only when its client has gone (noticed by a write, a
keep-alive at the latest) or Redis fails.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import orjson
import redis
from flask import Response, current_app
from marshmallow import Schema, ValidationError, fields, validate

from shared.readmodels.player_feeds import awaiting_turns

from .api_error import ApiError
from .auth import stream_caller
from .fanout import Hub
from .feeds import PlayerFeed
from .players import Player
from .schemas import MAX_POSITION, ErrorSchema
from .smorest import ApiBlueprint
from .stream import KEEP_ALIVE_SECONDS, RETRY_MS, StreamQuerySchema, sse_response
from .wiring import services

blp = ApiBlueprint("player_stream", __name__, description="A player's own notices as server-sent events.")


_ENTRY_ID = r"^[0-9]{1,20}-[0-9]{1,20}$"


def _held_by_redis(entry_id: str) -> None:
    """Each part a stream position (else Redis would refuse the read: a 503 for a client's typo)."""
    if re.match(_ENTRY_ID, entry_id) and any(int(part) > MAX_POSITION for part in entry_id.split("-")):
        raise ValidationError("Invalid value.")


class PlayerStreamHeadersSchema(Schema):
    last_event_id = fields.String(
        data_key="Last-Event-ID", validate=[validate.Regexp(_ENTRY_ID), _held_by_redis],
        metadata={"description": "The last `id` received: a reconnect. Reads on from there, or, if the feed "
                                 "no longer holds everything after it, sends the awaiting matches again."},
    )


@blp.route("/players/<id:player_id>/stream", methods=["GET"])
@blp.arguments(StreamQuerySchema, location="query")
@blp.arguments(PlayerStreamHeadersSchema, location="headers")
@blp.response(200, content_type="text/event-stream",
              description="First, at once, `event: turn` for each playing match awaiting the player; then "
                          "`event: turn`, `data: {\"match_id\", \"version\", \"deadline\"}` whenever a match starts "
                          "awaiting their decision (`deadline`: ISO 8601 UTC, or null) and `event: match`, "
                          "`data: {\"match_id\", \"status\", \"version\"}` whenever one changes status. `id:` is "
                          "the position in the player's feed; `: keep-alive` comments every 15 s.")
@blp.alt_response(401, schema=ErrorSchema, description="`UNAUTHENTICATED`: no token, one of no player, a ticket "
                                                                "unknown, used or expired, or a token in the URL.")
@blp.alt_response(403, schema=ErrorSchema, description="`NOT_A_PLAYER`: the token is another player's.")
@blp.alt_response(503, schema=ErrorSchema,
                  description="`STREAMS_BUSY`: this server process holds `MAX_STREAMS` streams already; "
                              "retry after `Retry-After` seconds.")
@blp.alt_response(429, schema=ErrorSchema,
                  description="`RATE_LIMITED` (`limit`: `streams`): this client address holds `STREAMS_PER_CLIENT` "
                              "streams open already (match and player streams alike); retry after `Retry-After` "
                              "seconds.")
def player_stream(query: dict, headers: dict, player_id: str) -> Response:
    """Where the player is awaited, live: their own token only (header, or a `?ticket=` for browsers)."""
    _authorize(stream_caller(query), player_id)
    ctx = services()
    resume = headers.get("last_event_id")
    keep_alive, logger = ctx.keep_alive_seconds, current_app.logger

    def messages() -> Iterator[bytes]:
        feeds = ctx.read_models.feeds
        if resume is not None and feeds.resumes(player_id, resume):
            return notice_messages(player_id, resume, [], ctx.feeds.players, logger, keep_alive)
        start = feeds.position(player_id)  # before the scan: whatever is told after it is read on
        first = list(awaiting_turns(ctx.read_models, player_id))
        return notice_messages(player_id, start, first, ctx.feeds.players, logger, keep_alive)

    return sse_response(messages)


def _authorize(player: Player | None, player_id: str) -> None:
    if player is None:
        raise ApiError(401, "UNAUTHENTICATED", "This stream needs its player's token: 'Authorization: Bearer "
                                               "<token>', or '?ticket=' from POST /stream-tickets.")
    if player.id != player_id:
        raise ApiError(403, "NOT_A_PLAYER", "This stream is another player's.")


def notice_messages(
    player_id: str, start: str, first: list[dict[str, Any]], feeds: Hub[PlayerFeed],
    logger: Any, keep_alive: float = KEEP_ALIVE_SECONDS,
) -> Iterator[bytes]:
    """The SSE byte chunks of one player stream: ``first`` as turns, then the feed after ``start``.

    The turns of the scan carry no ``id``: the position ``start`` follows them in a message
    of its own, so a client that drops before it has seen them all gets the scan again.
    The stream watches the player's feed only while it runs, however it ends.
    """
    yield b"retry: %d\n" % RETRY_MS + b"".join(_message("turn", None, data) for data in first) + \
        b"id: %s\n\n" % start.encode()
    after = start
    with feeds.watching(player_id) as feed:
        try:
            while True:
                changed = feed.changed  # before the look: a notice told after it still wakes us
                notices = feed.after(after)
                if notices:
                    yield b"".join(_message(notice.kind, notice.id, notice.data) for notice in notices)
                    after = notices[-1].id
                elif not changed.wait(keep_alive):
                    feed.look_again_after(keep_alive)  # one read per player, should a wake-up be lost
                    yield b": keep-alive\n\n"
        except redis.RedisError as error:
            # Ending the stream is the honest answer: the client reconnects after RETRY_MS.
            logger.warning("player stream of %s ended by redis: %s", player_id, error)


def _message(kind: str, entry_id: str | None, data: dict[str, Any]) -> bytes:
    position = b"" if entry_id is None else b"id: %s\n" % entry_id.encode()
    return b"event: %s\n%sdata: %s\n\n" % (kind.encode(), position, orjson.dumps(data))
