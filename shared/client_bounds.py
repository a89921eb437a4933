"""Bounds on what one HTTP client holds: a deadline on each request's arrival, a cap on connections per address.

The API's gunicorn worker applies them (``services/api/gunicorn_config.py``); they live here,
apart from the app, because gunicorn's master loads the worker before any process loads the
app (and imports none of it), and the cap counts addresses as the app's limits do.

**The deadline.** A stalled socket is closed after ``STALLED_CLIENT_SECONDS``, but that bounds
each read alone: a head sent at once and then one body byte every 20 s makes progress for
ever, and a few dozen such sockets held every connection of a process. So every read of a
request, from its first byte until the app has its body, shares one deadline
(``REQUEST_DEADLINE_SECONDS``). Only reads count: a response is written, never read, so a
live stream lasting hours or a phone downloading slowly is never cut off by it (their sends
keep the stall bound alone). A read past the deadline, or one that stalled, is *late*:
inside the app it raises the error it is given (werkzeug's ``RequestTimeout``: the app answers
408 ``REQUEST_TIMEOUT``, where a stalled body was answered 400 as if malformed); outside it
(the head, or the rest of a body the app left unread) it reads as the end of the connection,
which gunicorn closes quietly (a timeout there was logged as an error with its traceback, a
line per abusive connection). Either way the connection is closed after the answer.

**The cap.** :class:`ConnectionsPerAddress` counts the open connections of each client address
(:mod:`shared.addresses`: IPv6 by its /64) in one process; past the cap, a new connection is
closed at once, before anything is read from it. The trusted proxies are not capped: behind
one, every client arrives from its address (which one sent a request is known only from the
head's ``X-Forwarded-For``, too late to refuse a connection); cap connections at the proxy.
"""
from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from shared.addresses import address_of, is_trusted
from shared.config import Network


class DeadlineSocket:
    """A client socket whose reads, from a request's first byte until its answer is written, share one deadline.

    Everything but ``recv`` is the socket's own. ``in_app`` is set while the app runs (it reads
    the body then); ``expired`` once a read came too late, so that the connection is closed.
    """

    def __init__(self, sock: Any, seconds: float, stall_seconds: float, too_late: Callable[[], Exception],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._sock = sock
        self._too_late = too_late  # what a read inside the app raises past the deadline
        self._seconds = seconds  # 0 or less: no deadline
        self._stall = stall_seconds  # the socket's own timeout, given back after a shorter read
        self._clock = clock
        self._ends: float | None = None  # armed by a request's first byte
        self.in_app = False
        self.expired = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)

    def recv(self, size: int, *flags: int) -> bytes:
        if self._ends is None:  # waiting for a request: the stall bound and gunicorn's keep-alive apply
            data = self._read(size, flags, None)
            if data and self._seconds > 0:
                self._ends = self._clock() + self._seconds
            return data
        left = self._ends - self._clock()
        if left <= 0:
            return self._late()
        return self._read(size, flags, left if left < self._stall else None)

    def _read(self, size: int, flags: tuple[int, ...], shorter: float | None) -> bytes:
        """One read, waiting the stall bound or ``shorter``; a read that waited that long in vain is late."""
        if shorter is not None:
            self._sock.settimeout(shorter)
        try:
            return self._sock.recv(size, *flags)
        except TimeoutError:
            return self._late()
        finally:
            if shorter is not None:
                self._sock.settimeout(self._stall)  # the answer's writes keep the stall bound alone

    def next_request(self) -> None:
        """The answer is written: the next request's first byte arms a deadline of its own."""
        self._ends = None

    def _late(self) -> bytes:
        self.expired = True
        if self.in_app:
            raise self._too_late()
        return b""  # the parser reads the end of the connection


def within_deadline(app: Callable[..., Any]) -> Callable[..., Any]:
    """The WSGI ``app``, marking its client's socket as read by the app while it runs (a late body read raises)."""

    def app_within_deadline(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        sock = environ.get("gunicorn.socket")
        if not isinstance(sock, DeadlineSocket):
            return app(environ, start_response)
        sock.in_app = True
        try:
            return app(environ, start_response)  # a stream's generator is returned, not run: no read after this
        finally:
            sock.in_app = False

    return app_within_deadline


class ConnectionsPerAddress:
    """The open connections of each client address in one process, at most ``cap`` each (0: no cap).

    Taken and given back on the worker's one event loop, between two of its switches, so it
    needs no lock.
    """

    def __init__(self, cap: int, trusted: Sequence[Network] = ()) -> None:
        self.cap = cap
        self._trusted = trusted
        self._open: Counter[str] = Counter()

    def open(self, address: str) -> int:
        """How many connections ``address`` holds now."""
        return self._open[address]

    def admit(self, peer: Any) -> Callable[[], None] | None:
        """The function that counts the connection from ``peer`` closed; None if its address is at the cap."""
        host = peer[0] if isinstance(peer, tuple) and peer else None
        if self.cap <= 0 or host is None or is_trusted(host, self._trusted):  # a unix socket: a local proxy
            return _nothing
        address = address_of(host, (), ())
        if self._open[address] >= self.cap:
            return None
        self._open[address] += 1
        closed = False

        def close() -> None:
            nonlocal closed
            if not closed:
                closed = True
                self._open[address] -= 1
                if not self._open[address]:
                    del self._open[address]

        return close


def _nothing() -> None:
    """Nothing to give back: a connection that was not counted."""
