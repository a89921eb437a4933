"""This process's ear for revoked tokens: its token cache kept true without a Redis round trip per request.

The cache (:mod:`.token_cache`) answers an authenticated request from memory. A token revoked
anywhere (:func:`shared.revocations.revoke`) is published by its hash; the process's one
subscriber (:class:`shared.subscriber.Subscriber`, shared with the live streams) hands it
here and the cache forgets it, within a message's trip: well under a second.

A message sent while the subscriber did not hear the channel is lost, so the cache answers
only while it hears: from the subscription's confirmation (which first forgets everything
remembered before it: a revocation may have gone by unheard) until the channel is
unsubscribed or its connection ends (which forgets everything again). Meanwhile every request
asks Redis, as a cache miss does. What is left is a connection gone dead without the
subscriber noticing (no reset, no error): then the cache's TTL bounds how long a revoked
token is still served, one TTL after that process last looked it up in Redis.

The hashes heard are kept a while too (the last ``RECENT``): a live stream opened with a
token ends at its next message or keep-alive once that token is revoked (``stream.py``).

The channel is wanted while the process has authenticated someone within a TTL (past that,
every entry has expired: nothing is left to keep true), so a process nobody calls with a
token stands its subscriber down as before.
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from shared import keys
from shared.revocations import heard_hash
from shared.subscriber import Subscriber

from .token_cache import TokenCache

RECENT = 10_000  # revoked hashes kept for the streams to check: a stream lives long, a rotation is rare


class Revocations:
    """Keeps ``cache`` true by what ``subscriber`` hears on ``keys.TOKENS_REVOKED``."""

    def __init__(
        self, cache: TokenCache[Any], subscriber: Subscriber, clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._cache = cache
        self._subscriber = subscriber
        self._clock = clock
        self._lock = threading.Lock()
        self._hearing = False
        self._asked_at: float | None = None  # the last time a request asked whether it may trust the cache
        self._recent: OrderedDict[str, None] = OrderedDict()  # hashes heard revoked, oldest first
        subscriber.on(keys.TOKENS_REVOKED, self._heard, self._wanted, self._lost)

    def trusted(self) -> bool:
        """Whether the cache may answer now (it hears every revocation); if not, the subscriber is started.

        Called by every authenticated request: no I/O once the subscriber hears.
        """
        self._asked_at = self._clock()
        if self._hearing:
            return True
        self._subscriber.start()
        return False

    def revoked(self, token_hash: str) -> bool:
        """Whether this process has heard ``token_hash`` revoked (lately: the last ``RECENT`` of them)."""
        return token_hash in self._recent

    def _heard(self, message: str | None) -> None:
        """A revoked token's hash: forget it. None (the subscription confirmed) or anything else: forget all."""
        token_hash = heard_hash(message)
        if token_hash is not None:
            self._cache.forget(token_hash)
            with self._lock:
                self._recent[token_hash] = None
                while len(self._recent) > RECENT:
                    self._recent.popitem(last=False)
            return
        with self._lock:  # forgotten first: what was remembered before the subscription may be revoked
            self._cache.clear()
            self._hearing = message is None or self._hearing

    def _lost(self) -> None:
        with self._lock:
            self._hearing = False
            self._cache.clear()

    def _wanted(self) -> bool:
        asked = self._asked_at
        return asked is not None and self._clock() - asked < self._cache.ttl_seconds
