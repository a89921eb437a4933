"""One reader per API process for every live stream: appends and notices fanned out to their viewers.

A stream holds no thread and no Redis connection of its own. The append script publishes
the match id on ``keys.MATCHES_APPENDED`` and the projector publishes the player id on
``keys.PLAYERS_TOLD`` with each notice; the process's one subscriber
(:class:`shared.subscriber.Subscriber`: one connection, one thread, a greenlet under
gunicorn's gevent worker, shared with the reads that wait for a version) marks the
match's or player's :class:`Topic` stale and wakes its viewers through one event. The
first viewer to wake reads what changed, once for the process (the others wait on the
topic's lock, then find it fresh), and each audience's message is rendered once
(``services.api.feeds``).

The subscriber runs while some stream watches or some read waits (it stands down a
second after the last one ends), and hears the appends while some stream of its process
watches a match (the notices told, while one watches a player). Then it hears every
append (one global channel, like the views' channel): a short message per append per
API process, against SUBSCRIBE/UNSUBSCRIBE per match as viewers come and go. A message lost while the
subscriber reconnects is not lost for long: on subscribing it marks every topic stale,
and a topic not read for a keep-alive period is read again at the next keep-alive (one
read per topic, not per viewer).
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

CLIENT_NAME = "truc-fanout"  # CLIENT LIST shows each API process's one subscriber under this name


class Topic:
    """What the viewers of one match (or player) share: a lock, staleness, and the event that wakes them."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.changed = threading.Event()  # replaced at each change: a viewer waits on the one it saw
        self.stale = True
        self.read_at = 0.0  # time.monotonic() of the last read

    def notify(self) -> None:
        """Something changed: the next look reads it, and every viewer wakes to look."""
        self.stale = True
        woken, self.changed = self.changed, threading.Event()
        woken.set()

    def look_again_after(self, seconds: float) -> None:
        """Mark the topic stale if it was last read ``seconds`` ago or more (a lost message's safety net)."""
        if time.monotonic() - self.read_at >= seconds:
            self.stale = True

    def fresh(self) -> None:
        """Called, under the lock, by whoever just read the topic."""
        self.stale, self.read_at = False, time.monotonic()


T = TypeVar("T", bound=Topic)


class Hub(Generic[T]):
    """The topics of one kind that streams of this process watch, each made once and dropped with its last viewer."""

    def __init__(self, make: Callable[[str], T], started: Callable[[], None]) -> None:
        self._make = make
        self._started = started  # makes sure the process's subscriber runs
        self._lock = threading.Lock()
        self._topics: dict[str, tuple[T, int]] = {}

    @contextmanager
    def watching(self, topic_id: str) -> Iterator[T]:
        """The topic of ``topic_id`` for as long as the caller watches it."""
        with self._lock:
            topic, viewers = self._topics.get(topic_id) or (self._make(topic_id), 0)
            self._topics[topic_id] = (topic, viewers + 1)
        self._started()
        try:
            yield topic
        finally:
            with self._lock:
                topic, viewers = self._topics[topic_id]
                if viewers > 1:
                    self._topics[topic_id] = (topic, viewers - 1)
                else:
                    del self._topics[topic_id]

    def get(self, topic_id: str) -> T | None:
        """The topic of ``topic_id`` if some stream watches it now."""
        entry = self._topics.get(topic_id)
        return None if entry is None else entry[0]

    def wake(self, topic_id: str | None) -> None:
        """Notify the topic of ``topic_id`` if anyone watches it (None: every topic)."""
        with self._lock:
            if topic_id is None:
                woken = [topic for topic, _ in self._topics.values()]
            else:
                woken = [entry[0] for entry in (self._topics.get(topic_id),) if entry is not None]
        for topic in woken:
            topic.notify()

    @property
    def watched(self) -> int:
        """How many topics some stream watches now."""
        return len(self._topics)
