"""``python -m services.api pairer``: pairs the open seeks as their windows widen.

A seek is paired at once when a fitting one is open (the request that opens it runs a pass);
one that waits is paired by a pairer's pass as its window widens with waiting time
(:mod:`.seek_pool`), and expires there. Each pass is one Lua script per pool, so any number
of pairers (and API processes) may run: none pairs a seek twice. A pairing whose maker died
is remade here (:meth:`.matchmaking.Matchmaker.recover`).
"""
from __future__ import annotations

import logging
import signal
import threading

import redis

from .matchmaking import Matchmaker

PASS_SECONDS = 0.25  # a waiting seek's widened window is tried this often
log = logging.getLogger(__name__)


def pair_until(matchmaker: Matchmaker, stop: threading.Event) -> None:
    """Pass over the pools until ``stop`` is set; a Redis outage only pauses it."""
    while not stop.is_set():
        try:
            matchmaker.recover()
            made = matchmaker.pair_now()
        except redis.RedisError as error:
            log.warning("pairer: Redis unavailable (%s); trying again", error)
            made = 0
        if not made:
            stop.wait(PASS_SECONDS)


def pair_forever(matchmaker: Matchmaker) -> None:
    """Run the pairer until SIGTERM or SIGINT."""
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    log.info("pairer: pairing open seeks")
    pair_until(matchmaker, stop)
