"""Client threads playing matches over HTTP through a Redis Cluster failover, noting every
acknowledged (2xx) action: what the stream must still hold afterwards."""

from __future__ import annotations

import random
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from tests.reliability.play import Player, act, pick_action, register
from tests.reliability.stack import TimedHttp

PAUSE = 0.1  # seconds between the retries of a refused or unanswered request


@dataclass
class Acknowledged:
    match_id: str
    version: int  # the version the reply named
    types: list[str]  # the types of the events it answered with, ending at ``version``


@dataclass
class Load:
    """``threads`` clients, each playing match after match until ``stop`` is set."""

    url: str
    threads: int = 4
    stop: threading.Event = field(default_factory=threading.Event)
    acked: list[Acknowledged] = field(default_factory=list)
    refused: dict[str, int] = field(default_factory=dict)  # unanswered or 5xx replies, by code
    match_ids: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _workers: list[threading.Thread] = field(default_factory=list)

    def start(self) -> Load:
        self._workers = [threading.Thread(target=self._client, args=(n,), daemon=True) for n in range(self.threads)]
        for worker in self._workers:
            worker.start()
        return self

    def join(self) -> None:
        self.stop.set()
        for worker in self._workers:
            worker.join(30)

    def _client(self, n: int) -> None:
        http, rng = TimedHttp(self.url), random.Random(n)
        try:
            players = {"A": self._retry(lambda: register(http)), "B": self._retry(lambda: register(http))}
            while not self.stop.is_set():
                self._play(http, self._retry(lambda: self._new_match(http, players)), players, rng)
        except (AssertionError, OSError):
            return  # stopped while a request was being retried

    def _new_match(self, http: TimedHttp, players: dict[str, Player]) -> str:
        created = http.post("/matches", {}, token=players["A"].token)
        assert created.status == 201, created.body
        with self._lock:
            self.match_ids.add(created.body["id"])
        joined = http.post(f"/matches/{created.body['id']}/join", {}, token=players["B"].token)
        assert joined.status == 200, joined.body
        return created.body["id"]

    def _play(self, http: TimedHttp, match_id: str, players: dict[str, Player], rng: random.Random) -> None:
        version = 0
        while not self.stop.is_set():
            views = {seat: self._retry(lambda p=p, v=version: _view(http, match_id, p, v))
                     for seat, p in players.items()}
            if min(seen["version"] for seen in views.values()) < version:
                continue  # the read models are behind (a failover): ask again
            chosen = pick_action(views, rng)
            if chosen is None:
                return
            seat, action = chosen
            version = self._act(http, match_id, players[seat], action) or version

    def _act(self, http: TimedHttp, match_id: str, player: Player, action: dict[str, Any]) -> int | None:
        """Send one action until it is answered (the same Idempotency-Key throughout); its version."""
        key = uuid.uuid4().hex
        while not self.stop.is_set():
            try:
                reply = act(http, match_id, player, action, key=key)
            except OSError:
                self._count("unanswered")
                time.sleep(PAUSE)
                continue
            if reply.status == 200:
                types = [event["type"] for event in reply.body["events"]]
                with self._lock:
                    self.acked.append(Acknowledged(match_id, reply.body["version"], types))
                return reply.body["version"]
            if reply.status < 500:
                return None  # refused by the rules (a stale view): look again
            self._count(reply.body["error"] if reply.body else str(reply.status))
            time.sleep(PAUSE)
        return None

    def _retry(self, call):
        while True:
            try:
                return call()
            except (AssertionError, OSError) as error:
                self._count(type(error).__name__)
                if self.stop.is_set():
                    raise
                time.sleep(PAUSE)

    def _count(self, what: str) -> None:
        with self._lock:
            self.refused[what] = self.refused.get(what, 0) + 1


def _view(http: TimedHttp, match_id: str, player: Player, version: int) -> dict[str, Any]:
    reply = http.get(f"/matches/{match_id}?min_version={version}&wait=2", token=player.token)
    assert reply.status == 200, reply.body
    return reply.body
