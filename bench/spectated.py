"""The streams section's stack: its matches, their spectators, and what they cost.

See :mod:`bench.streams` for what is measured. The client processes are forked before the
first viewer socket is opened (a forked child would otherwise hold every socket open after
this process closed it).
"""
from __future__ import annotations

import random
import socket
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from . import cpu
from .player import MatchPlayer
from .stack import Stack
from .stats import percentile
from .throughput import Phase, play_matches, run_phase
from .viewers import Idle, close_viewers, open_viewers, read_views, rss_kb, wait_streams_closed
from .wire import Http

BASELINE_VIEWERS = 10
WEEK = 604_800
GIVE_UP_SECONDS = 30.0  # a view that has not arrived by then fails the run
OPENING_SECONDS = 15.0  # the streams open over one keep-alive period (an all-at-once burst would recur every 15 s)
IDLE_SECONDS = 15.0  # an idle window of one keep-alive period (every stream sends one): what open streams cost alone


def _move(player: MatchPlayer) -> None:
    """A card played by the seat to act (or a raise accepted): the match never ends within a few."""
    rnd = player.state.round
    assert rnd is not None
    if rnd.pending is not None:
        player.act(rnd.pending.by.other, {"type": "accept"})
    else:
        player.act(rnd.turn, {"type": "play", "card": rnd.hand(rnd.turn)[0]})


def delivery_ms(player: MatchPlayer, viewers: list[socket.socket]) -> list[float]:
    """One move in ``player``'s match: ms from sending it until each of ``viewers`` read its view."""
    before, failed = player.version, []
    mover = threading.Thread(target=lambda: _guarded(player, failed))
    sent = time.monotonic()
    mover.start()
    seen = read_views(viewers, before, GIVE_UP_SECONDS)
    mover.join()
    if failed or len(seen) < len(viewers):
        raise RuntimeError(f"a move reached {len(seen)} of {len(viewers)} viewers: {failed}")
    return [(at - sent) * 1000 for at in seen.values()]


def _guarded(player: MatchPlayer, failed: list[BaseException]) -> None:
    try:
        _move(player)
    except Exception as error:  # noqa: BLE001 - reported by the thread that waits for the views
        failed.append(error)


def _summary(samples: list[float]) -> dict[str, float]:
    return {"p50": percentile(samples, 50), "p99": percentile(samples, 99), "max": max(samples),
            "samples": len(samples)}


class Spectated:
    """The matches, their viewers and the figures of one stack."""

    def __init__(self, stack: Stack, viewers: int, matches: int) -> None:
        self.stack, self.http, self.redis = stack, Http(stack.api_port), stack.client()
        rng = random.Random(7)
        self.players = [MatchPlayer(self.http, rng, lambda *_: None) for _ in range(matches + 1)]
        for player in self.players:
            player.start(rules={"turn_seconds": WEEK})  # no clock runs out while the run waits
        self.per_match = viewers // matches
        self.groups: list[list[socket.socket]] = []
        self.result: dict[str, Any] = {
            "viewers": self.per_match * matches, "matches": matches, "baseline_viewers": BASELINE_VIEWERS,
            "delivery": [], "baseline_delivery": [], "openings": [], "closing_s": [],
            "windows": {"none": [], "open": []}, "idle_api_cpu_ms_per_s": {"none": [], "open": []},
        }

    @property
    def sockets(self) -> list[socket.socket]:
        return [viewer for group in self.groups for viewer in group]

    def baseline(self, runs: int, moves: int) -> None:
        """Moves in one match with its ``BASELINE_VIEWERS`` streams the only ones open."""
        player, port = self.players[-1], self.stack.api_port
        viewers = open_viewers(port, player.match_id, BASELINE_VIEWERS)
        try:
            self._opened(viewers, player.version)
            for _ in range(runs):
                samples = [ms for _ in range(moves) for ms in self._paced(player, viewers)]
                self.result["baseline_delivery"].append(_summary(samples))
        finally:
            close_viewers(viewers)
        self.result["closing_s"].append(round(wait_streams_closed(port), 1))

    def _paced(self, player: MatchPlayer, viewers: list[socket.socket]) -> list[float]:
        samples = delivery_ms(player, viewers)
        time.sleep(0.2)  # one move at a time: the next does not meet this one's fan-out
        return samples

    def open(self) -> None:
        """Open the streams (``per_match`` on each match but the baseline's) over a keep-alive period.

        Memory and Redis connections are read before, after the first half, and after all.
        """
        master = self.stack.pids()["api"][0]
        opening = {"rss_kb_before": rss_kb(master), "redis_clients_before": self._redis_clients()}
        started, matches = time.monotonic(), self.players[:-1]
        for part in (matches[:len(matches) // 2], matches[len(matches) // 2:]):
            for player in part:  # paced: their keep-alives come spread over the period, as viewers arriving would
                time.sleep(max(0.0, started + len(self.groups) * OPENING_SECONDS / len(matches) - time.monotonic()))
                self.groups.append(open_viewers(self.stack.api_port, player.match_id, self.per_match))
            for player, group in zip(part, self.groups[len(self.groups) - len(part):]):
                self._opened(group, player.version)
            opening.setdefault("redis_clients_half", self._redis_clients())
            opening.setdefault("streams_half", len(self.sockets))
        opening.update(streams=len(self.sockets), seconds=round(time.monotonic() - started, 2),
                       rss_kb_after=rss_kb(master), redis_clients_after=self._redis_clients())
        self.result["openings"].append(opening)

    def _opened(self, viewers: list[socket.socket], version: int) -> None:
        if len(read_views(viewers, version - 1, 120.0)) < len(viewers):
            raise RuntimeError(f"streams of a match did not all open: {len(viewers)} requested")

    def _redis_clients(self) -> int:
        return len(self.redis.client_list())

    def deliver(self, runs: int, moves: int) -> None:
        """``runs`` times: a move in each of ``moves`` matches, timed to every viewer of the match."""
        for run in range(runs):
            samples: list[float] = []
            for index in range(moves):
                match = (run * moves + index) % len(self.groups)
                samples += self._paced(self.players[match], self.groups[match])
            self.result["delivery"].append(_summary(samples))

    def close(self) -> None:
        """Close every stream and wait until the API has let them all go."""
        for group in self.groups:
            close_viewers(group)
        self.groups.clear()
        self.result["closing_s"].append(round(wait_streams_closed(self.stack.api_port), 1))

    def window(self, pool: ProcessPoolExecutor, clients: int, seconds: float, seed: int, idle: bool) -> None:
        """A throughput window (after an idle one if ``idle``), with the streams open (read in a thread) or none."""
        side = "open" if self.groups else "none"
        with Idle(self.sockets):
            if idle:
                self.result["idle_api_cpu_ms_per_s"][side].append(round(self._idle_api_cpu(IDLE_SECONDS) * 1000, 1))
            phase = run_phase(pool, play_matches, self.stack, clients, seconds, seed)
        self.result["windows"][side].append(_phase(phase))

    def _idle_api_cpu(self, seconds: float) -> float:
        """CPU seconds a second of the API's processes while nobody sends a command."""
        api = {"api": self.stack.pids()["api"]}
        before = cpu.snapshot(api)
        time.sleep(seconds)
        return cpu.spent(before, cpu.snapshot(api))["api"] / seconds


def _phase(phase: Phase) -> dict[str, float]:
    return {"commands": phase.commands, "seconds": phase.seconds, "rate": round(phase.rate, 1),
            "drain_s": round(phase.drain_s, 2), "p50_ms": round(percentile(phase.latencies, 50) * 1000, 2),
            "cpu_ms_per_command": round(sum(phase.cpu.values()) / max(phase.commands, 1) * 1000, 3),
            "api_cpu_ms_per_command": round(phase.cpu.get("api", 0.0) / max(phase.commands, 1) * 1000, 3)}
