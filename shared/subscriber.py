"""One Redis pub/sub subscriber per process: one connection, one thread, for whoever listens.

Several parts of a process wait on published ids: the API's live streams (appends,
notices told) and its reads that wait for a version (views written). Each part registers
its channel with :meth:`Subscriber.on`, a ``wake`` that takes the id published (None:
look again, whatever it concerns), and a ``wanted`` that says whether it has anyone
waiting now; and, if it must know when it stops hearing the channel (a cache kept true by
the messages: :mod:`shared.revocations`), a ``lost`` called when the channel is unsubscribed
or its connection ends. The thread starts on :meth:`Subscriber.start` (the first waiter: building
the process does no I/O) and stands down once no part wants it (within a poll, about a
second).

It subscribes only the channels whose part wants them: a part's first waiter subscribes
its channel at once (its ``start``), and a channel nobody wants any more is unsubscribed
at the next poll. Every message costs each subscribed process its parsing, so open
streams do not make every process parse every view written and notice told as well.
On a subscribed channel the subscriber hears every message (a few global channels, not
one per match): a short message per write per process, against SUBSCRIBE/UNSUBSCRIBE
per match as waiters come and go. A message lost while the subscriber reconnects is not
lost for long: once a channel's subscription is confirmed its part is woken with None,
and each part looks again on its own from time to time.
"""
from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import redis

from shared.connect import learn_slots_again, node_client

CLIENT_NAME = "truc-subscriber"  # the default name CLIENT LIST shows the connection under
_RECONNECT_SECONDS = 1.0
_POLL_SECONDS = 1.0  # how long one look for a message blocks (the thread checks it is still wanted)
_PING_SECONDS = 30.0  # the subscriber's own health check (its connection's, redis-py's, is off: see next_reply)

log = logging.getLogger(__name__)

Wake = Callable[[str | None], None]


class Subscriber:
    """The process's subscriber, handing each published id to the ``wake`` of its channel."""

    def __init__(self, client: Any, client_name: str = CLIENT_NAME) -> None:
        self._client = client
        self._name = client_name
        self._lock = threading.Lock()
        self._channels: dict[str, tuple[Wake, Callable[[], bool]]] = {}
        self._lost: dict[str, Callable[[], None]] = {}
        self._thread: threading.Thread | None = None
        self._line: _Line | None = None  # the running subscriber's connection

    def on(self, channel: str, wake: Wake, wanted: Callable[[], bool], lost: Callable[[], None] | None = None) -> None:
        """Hand the ids published on ``channel`` to ``wake``, subscribed while ``wanted()`` (see :meth:`start`);
        ``lost()`` once it stops hearing them (unsubscribed, or its connection ended), if given."""
        with self._lock:
            self._channels[channel] = (wake, wanted)
            if lost is not None:
                self._lost[channel] = lost

    def start(self) -> None:
        """Start the subscriber unless it runs (a part that now has a waiter calls it, having counted the waiter).

        If it runs, the channels wanted now and not yet subscribed are subscribed at once.
        """
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="subscriber", daemon=True)
                self._thread.start()
                return
            line = self._line
        if line is not None:
            try:
                line.follow(self._wanted, drop=False)
            except (redis.RedisError, OSError):
                pass  # the subscriber's next look fails too: it reconnects and subscribes what is wanted then

    def _run(self) -> None:
        while self._still_needed():
            try:
                self._listen()
            except (redis.RedisError, OSError) as error:
                log.warning("subscriber lost its Redis (%s); waiters look again on their own", error)
                if not learn_slots_again(self._client):
                    log.warning("subscriber could not refresh the cluster's slots; it asks again on its next try")
                time.sleep(_RECONNECT_SECONDS)

    def _listen(self) -> None:
        client = own_connection_opener(self._client, next(iter(self._channels)), self._name)(_POLL_SECONDS + 5)
        line = _Line(client.pubsub(push_handler_func=_as_is))  # RESP3's default handler logs each message
        with self._lock:
            self._line = line
        try:
            while self._still_needed():
                line.follow(self._wanted, drop=True)
                line.keep_alive()
                self._hear(line, _POLL_SECONDS)
        finally:
            with self._lock:
                if self._line is line:
                    self._line = None
            line.subscription.close()
            client.close()
            self._lose(line.subscribed)

    def _hear(self, line: _Line, seconds: float) -> None:
        """Hand each message heard for ``seconds`` to its channel's part (a subscription confirmed: None)."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            reply = line.next_reply(left)
            if reply is None:
                continue
            kind, channel, data = reply
            part = self._channels.get(channel)
            if part is not None and kind == "message":
                part[0](data)
            elif part is not None and kind == "subscribe":
                part[0](None)  # whatever was published before we listened
            elif kind == "unsubscribe" and channel is not None:
                self._lose({channel})

    def _lose(self, channels: set[str]) -> None:
        """Tell the parts of ``channels`` that they no longer hear them."""
        for channel in channels:
            lost = self._lost.get(channel)
            if lost is not None:
                lost()

    def _wanted(self) -> set[str]:
        """The channels whose part has someone waiting now."""
        return {channel for channel, (_, wanted) in list(self._channels.items()) if wanted()}

    def _still_needed(self) -> bool:
        """True while some part wants it and this thread is the subscriber; else it stands down."""
        with self._lock:
            if self._thread is not threading.current_thread():
                return False
            if any(wanted() for _, wanted in self._channels.values()):
                return True
            self._thread = None  # the next waiter starts a new one
            return False


class _Line:
    """The subscriber's connection, subscribed to the channels wanted (by the subscriber's thread, or by a
    part that has a new waiter, at once: a message of its channel published after that reaches it)."""

    def __init__(self, subscription: Any) -> None:
        self.subscription = subscription
        self._lock = threading.Lock()
        self._subscribed: set[str] = set()
        self._pinged = time.monotonic()

    def next_reply(self, timeout: float) -> tuple[str, str | None, str | None] | None:
        """The next reply within ``timeout`` as (kind, channel, data), else None.

        A message is read straight off the connection, with the socket's own timeout (not a
        poll of the socket, then a look whether it closed, then the read: most of redis-py's
        ``get_message``); the rest (confirmations, pongs) goes through redis-py's bookkeeping.
        """
        connection = self.subscription.connection
        if not _reads_with_timeout(connection):
            message = self.subscription.get_message(timeout=timeout)
            return None if message is None else (message["type"], _text(message["channel"]),
                                                 _text(message["data"]))
        try:
            reply = connection.read_response(disconnect_on_error=False, push_request=True, timeout=timeout)
        except redis.TimeoutError:
            return None
        if isinstance(reply, list) and len(reply) == 3 and reply[0] in (b"message", "message"):
            return "message", _text(reply[1]), _text(reply[2])
        message = self.subscription.handle_message(reply)
        return None if message is None else (message["type"], _text(message["channel"]), None)

    @property
    def subscribed(self) -> set[str]:
        """The channels subscribed on this connection (asked, if not yet confirmed)."""
        with self._lock:
            return set(self._subscribed)

    def keep_alive(self) -> None:
        """A PING every ``_PING_SECONDS`` while subscribed: a connection gone silently fails a write."""
        if self._subscribed and time.monotonic() - self._pinged >= _PING_SECONDS:
            self._pinged = time.monotonic()
            self.subscription.ping()

    def follow(self, wanted: Callable[[], set[str]], drop: bool) -> None:
        """Subscribe the channels ``wanted()`` now (asked under the lock); with ``drop``, unsubscribe the others."""
        with self._lock:
            channels = wanted()
            new, old = channels - self._subscribed, (self._subscribed - channels if drop else set())
            if new:
                self.subscription.subscribe(*sorted(new))
                self._subscribed |= new
            if old:
                self.subscription.unsubscribe(*sorted(old))
                self._subscribed -= old


def own_connection_opener(shared: Any, key: str, client_name: str) -> Callable[[float], redis.Redis]:
    """Opens a client of its own, named ``client_name``, on the Redis that serves ``key``.

    On a cluster, the node of ``key``'s slot; a published message reaches every node's subscribers.
    """
    pool = node_client(shared, key).connection_pool  # on a cluster, the node that serves the key's slot

    def open_connection(read_timeout: float) -> redis.Redis:
        settings = {**pool.connection_kwargs, "socket_timeout": read_timeout, "client_name": client_name,
                    "health_check_interval": 0}  # a check would read a reply on its own, beside the subscriber
        own_pool = redis.ConnectionPool(connection_class=pool.connection_class, max_connections=1, **settings)
        return redis.Redis.from_pool(own_pool)  # closing the client closes its pool and connection

    return open_connection


def _text(value: bytes | str | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


def _reads_with_timeout(connection: Any) -> bool:
    """Whether ``connection`` reads off a socket (a read times out; not a fake server's queue)."""
    return isinstance(getattr(connection, "_sock", None), socket.socket)


def _as_is(reply: Any) -> Any:
    return reply
