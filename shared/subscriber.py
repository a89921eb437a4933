"""One Redis pub/sub subscriber per process: one connection, one thread, for whoever listens.

Several parts of a process wait on published ids: the API's live streams (appends,
notices told) and its reads that wait for a version (views written). Each part registers
its channel with :meth:`Subscriber.on`, a ``wake`` that takes the id published (None:
look again, whatever it concerns), and a ``wanted`` that says whether it has anyone
waiting now. The thread starts on :meth:`Subscriber.start` (the first waiter: building
the process does no I/O), listens to every registered channel, and stands down once no
part wants it (within a poll, about a second).

Every subscriber hears every message of its channels (a few global channels, not one per
match): a short message per write per process, against SUBSCRIBE/UNSUBSCRIBE per match
as waiters come and go. A message lost while the subscriber reconnects is not lost for
long: on subscribing it wakes every part with None, and each part looks again on its own
from time to time.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import redis

from shared.connect import is_cluster_client, learn_slots_again

CLIENT_NAME = "truc-subscriber"  # the default name CLIENT LIST shows the connection under
_RECONNECT_SECONDS = 1.0
_POLL_SECONDS = 1.0  # how long one look for a message blocks (the thread checks it is still wanted)

log = logging.getLogger(__name__)

Wake = Callable[[str | None], None]


class Subscriber:
    """The process's subscriber, handing each published id to the ``wake`` of its channel."""

    def __init__(self, client: Any, client_name: str = CLIENT_NAME) -> None:
        self._client = client
        self._name = client_name
        self._lock = threading.Lock()
        self._channels: dict[str, tuple[Wake, Callable[[], bool]]] = {}
        self._thread: threading.Thread | None = None

    def on(self, channel: str, wake: Wake, wanted: Callable[[], bool]) -> None:
        """Hand the ids published on ``channel`` to ``wake`` (subscribed from the next look, if running)."""
        with self._lock:
            self._channels[channel] = (wake, wanted)

    def start(self) -> None:
        """Start the subscriber unless it runs (a part that now has a waiter calls it)."""
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="subscriber", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while self._still_needed():
            try:
                self._listen()
            except (redis.RedisError, OSError) as error:
                log.warning("subscriber lost its Redis (%s); waiters look again on their own", error)
                if is_cluster_client(self._client) and not learn_slots_again(self._client):
                    log.warning("subscriber could not refresh the cluster's slots; it asks again on its next try")
                time.sleep(_RECONNECT_SECONDS)

    def _listen(self) -> None:
        client = own_connection_opener(self._client, next(iter(self._channels)), self._name)(_POLL_SECONDS + 5)
        subscription = client.pubsub(ignore_subscribe_messages=True)
        subscribed: set[str] = set()
        try:
            while self._still_needed():
                self._subscribe_new(subscription, subscribed)
                message = subscription.get_message(timeout=_POLL_SECONDS)
                if message is not None and message["type"] == "message":
                    self._channels[_text(message["channel"])][0](_text(message["data"]))
        finally:
            subscription.close()
            client.close()

    def _subscribe_new(self, subscription: Any, subscribed: set[str]) -> None:
        """Subscribe to the channels registered since the last look, then wake their parts."""
        with self._lock:
            new = {channel: wake for channel, (wake, _) in self._channels.items() if channel not in subscribed}
        if new:
            subscription.subscribe(*new)
            subscribed.update(new)
            for wake in new.values():
                wake(None)  # whatever was published before we listened

    def _still_needed(self) -> bool:
        """True while some part wants it and this thread is the subscriber; else it stands down."""
        with self._lock:
            if self._thread is not threading.current_thread():
                return False
            if any(wanted() for _, wanted in self._channels.values()):
                return True
            self._thread = None  # the next waiter starts a new one
            return False


def own_connection_opener(shared: Any, key: str, client_name: str) -> Callable[[float], redis.Redis]:
    """Opens a client of its own, named ``client_name``, on the Redis that serves ``key``.

    On a cluster, the node of ``key``'s slot; a published message reaches every node's subscribers.
    """
    if is_cluster_client(shared):  # the node that serves the key's slot
        shared = shared.get_node_from_key(key).redis_connection
    pool = shared.connection_pool

    def open_connection(read_timeout: float) -> redis.Redis:
        settings = {**pool.connection_kwargs, "socket_timeout": read_timeout, "client_name": client_name}
        own_pool = redis.ConnectionPool(connection_class=pool.connection_class, max_connections=1, **settings)
        return redis.Redis.from_pool(own_pool)  # closing the client closes its pool and connection

    return open_connection



def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
