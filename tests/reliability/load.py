"""Steady play over HTTP that keeps going through faults, and remembers what was acknowledged.

Each ``Table`` thread plays its own matches (a new one when one ends), reading both seats'
views and sending a random legal action with ``If-Match``. Whatever the API answers is
recorded with how long it took; an action answered 200 is *acknowledged*: its events
must be in the stream whatever happens afterwards.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from tests.e2e.http import Http, Reply
from tests.reliability.play import Player, act, pick_action

PAUSE_AFTER_ERROR = 0.05  # seconds: a client backs off a little after an error


@dataclass
class Ledger:
    """What every table heard, shared between threads."""

    acknowledged: list[tuple[str, int, str, str]] = field(default_factory=list)  # (match, version, type, at)
    statuses: Counter = field(default_factory=Counter)
    slowest: dict[int, float] = field(default_factory=dict)  # status -> slowest answer (s)
    unanswered: list[str] = field(default_factory=list)  # requests with no HTTP answer at all
    matches: set[str] = field(default_factory=set)
    players: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def heard(self, status: int, seconds: float) -> None:
        with self.lock:
            self.statuses[status] += 1
            self.slowest[status] = max(self.slowest.get(status, 0.0), seconds)

    def acknowledge(self, match_id: str, reply: Reply) -> None:
        with self.lock:
            self.acknowledged += [(match_id, e["version"], e["type"], e["at"]) for e in reply.body["events"]]

    @property
    def events(self) -> int:
        return len(self.acknowledged)


class Table(threading.Thread):
    """One client playing matches back to back until ``stop`` is set."""

    def __init__(self, http: Http, ledger: Ledger, seed: int, **match_options: object) -> None:
        super().__init__(daemon=True)
        self.http, self.ledger, self.rng = http, ledger, random.Random(seed)
        self.options = match_options
        self.stop = threading.Event()

    def run(self) -> None:
        match_id = seats = None
        while not self.stop.is_set():
            try:
                if match_id is None:
                    match_id, seats = self._new_match()
                elif not self._step(match_id, seats):
                    match_id = None
            except OSError as error:  # no HTTP answer at all: what must never happen
                with self.ledger.lock:
                    self.ledger.unanswered.append(repr(error))
                time.sleep(PAUSE_AFTER_ERROR)

    def _new_match(self) -> tuple[str | None, dict[str, Player] | None]:
        """Two new players and their match; (None, None) if the API refused a step (e.g. 503)."""
        names = [f"load-{uuid.uuid4().hex[:12]}" for _ in range(2)]
        registered = [self._timed(lambda name=name: self.http.post("/players", {"name": name})) for name in names]
        if any(reply.status != 201 for reply in registered):
            time.sleep(PAUSE_AFTER_ERROR)
            return None, None
        a, b = (Player(reply.body["id"], name, reply.body["token"]) for reply, name in zip(registered, names))
        created = self._timed(lambda: self.http.post("/matches", self.options, token=a.token))
        if created.status != 201:
            time.sleep(PAUSE_AFTER_ERROR)
            return None, None
        match_id = created.body["id"]
        with self.ledger.lock:
            self.ledger.matches.add(match_id)
            self.ledger.players |= {a.id, b.id}
        terms = {"accept_custom": True}  # the tables start from chosen scores
        joined = self._timed(lambda: self.http.post(f"/matches/{match_id}/join", terms, token=b.token))
        if joined.status != 200:  # a match nobody joined: it stays waiting, which is fine
            time.sleep(PAUSE_AFTER_ERROR)
            return None, None
        return match_id, {"A": a, "B": b}

    def _step(self, match_id: str, seats: dict[str, Player]) -> bool:
        """One action if the match goes on; False once it is finished."""
        views = {}
        for seat, player in seats.items():
            reply = self._timed(lambda p=player: self.http.get(f"/matches/{match_id}", token=p.token))
            if reply.status != 200:
                time.sleep(PAUSE_AFTER_ERROR)
                return True
            views[seat] = reply.body
        if views["A"]["status"] == "finished":
            return False
        if views["A"]["version"] != views["B"]["version"]:
            return True  # the projector wrote between the two reads
        picked = pick_action(views, self.rng)
        if picked is None:
            return True
        seat, action = picked
        reply = self._timed(lambda: act(self.http, match_id, seats[seat], action, if_match=views[seat]["version"]))
        if reply.status == 200:
            self.ledger.acknowledge(match_id, reply)
        elif reply.status != 412:
            time.sleep(PAUSE_AFTER_ERROR)
        return True

    def _timed(self, call: Callable[[], Reply]) -> Reply:
        started = time.monotonic()
        reply = call()
        self.ledger.heard(reply.status, time.monotonic() - started)
        return reply


class Load:
    """Several tables at once; ``with Load(...) as load:`` starts and stops them."""

    def __init__(self, http: Http, tables: int = 4, **match_options: object) -> None:
        self.ledger = Ledger()
        self.tables = [Table(http, self.ledger, seed, **match_options) for seed in range(tables)]

    def __enter__(self) -> Load:
        for table in self.tables:
            table.start()
        return self

    def __exit__(self, *exc: object) -> None:
        for table in self.tables:
            table.stop.set()
        for table in self.tables:
            table.join(30)

    def wait_for(self, events: int, timeout: float = 20.0) -> None:
        """Block until ``events`` more events are acknowledged; AssertionError after ``timeout``."""
        target, deadline = self.ledger.events + events, time.monotonic() + timeout
        while self.ledger.events < target:
            assert time.monotonic() < deadline, f"only {self.ledger.events} of {target} events acknowledged"
            time.sleep(0.01)
