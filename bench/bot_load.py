"""Many bot matches at once on a real stack: how long the bot takes a move, as the server sees it.

``python -m bench.bot_load [--matches 50] [--level hard] [--seconds 60] [--turn-seconds 60]``
starts a stack with the house bot (its pool of ``BOT_WORKERS`` processes, one per core), warms
the pool up with one match, and opens ``--matches`` bot matches at ``--level`` at once, each
played by a client of its own that moves at once (random legal moves, never folding), for
``--seconds``; a finished match is followed by a new one. Then it reads every match's events:
a decision of the bot is the first event of one of its commands, and its latency is that
event's time less the time of the event before it (the move that made the bot the one
awaited): queueing in the bot's pool, the search, projection lag and HTTP included, all on
the server's clock. A move the clock made for the bot (``turn_timed_out``) is counted as a
miss, not timed. Baseline in the same run, on a fresh stack: the same matches at medium (the
heuristic, no search), what the stack and the pool cost without a search. Not part of
``make bench`` (about three minutes): docs/bot.md has its figures.
"""
from __future__ import annotations

import argparse
import os
import random
import threading
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

from .stack import Stack
from .stats import percentile
from .wire import Http

BOT_TOKEN = "bench-bot-secret-of-at-least-32-characters-0123"
HUMAN, BOT = "A", "B"
WARM_UP_SECONDS = 5.0
# The events that open a seat's command (their ``seat`` acted); the rest follow from them.
DECISIONS = frozenset({
    "card_played", "folded", "raise_proposed", "raise_accepted", "raise_rejected", "remainder_declared",
    "remainder_accepted", "remainder_rejected", "redeal_proposed", "redeal_accepted", "redeal_rejected",
})


def _ms(at: str) -> float:
    return datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp() * 1000


def bot_decisions(events: Iterable[dict]) -> tuple[list[float], int]:
    """(ms the bot took each decision, its turns the clock ran out on) from one match's events."""
    latencies, missed, previous = [], 0, None
    for event in events:
        if event["type"] == "turn_timed_out" and event["data"]["seat"] == BOT:
            missed += 1
        elif (previous is not None and event["type"] in DECISIONS and event["data"].get("seat") == BOT
              and previous["type"] != "turn_timed_out" and previous["at"] != event["at"]):  # a command of its own
            latencies.append(_ms(event["at"]) - _ms(previous["at"]))
        previous = event
    return latencies, missed


def _awaits_me(view: dict) -> bool:
    pending = view["round"]["pending"]
    return pending["by"] != HUMAN if pending else view["round"]["turn"] == HUMAN


class Player:
    """One client, one bot match at a time: moves at once whenever the match awaits it."""

    def __init__(self, port: int, level: str, turn_seconds: int, seed: int) -> None:
        self.http, self.level, self.turn_seconds = Http(port, timeout=60), level, turn_seconds
        self.rng = random.Random(seed)
        registered, _ = self.http.expect(201, "POST", "/players", body={"name": f"load-{seed}"})
        self.token = registered["token"]
        self.matches: list[str] = []

    def play_until(self, stop: threading.Event) -> None:
        while not stop.is_set():
            self._one_match(stop)

    def _one_match(self, stop: threading.Event) -> None:
        created, _ = self.http.expect(201, "POST", "/matches", token=self.token, body={
            "opponent": "bot", "bot_level": self.level, "rules": {"turn_seconds": self.turn_seconds}})
        match_id = created["id"]
        self.matches.append(match_id)
        view = self._view(match_id, created["version"])
        while view["status"] == "playing":
            if not _awaits_me(view):
                view = self._view(match_id, view["version"] + 1)
            elif stop.is_set():
                self.http.expect(200, "POST", f"/matches/{match_id}/actions", token=self.token, body={"type": "resign"})
                return
            else:
                moves = [a for a in view["legal_actions"] if a["type"] not in ("fold", "resign")]
                acted, _ = self.http.expect(200, "POST", f"/matches/{match_id}/actions", token=self.token,
                                            body=self.rng.choice(moves), if_match=view["version"])
                view = self._view(match_id, acted["version"])

    def _view(self, match_id: str, version: int) -> dict:
        while True:  # a wait answers with the older view when it times out: ask again
            view, _ = self.http.expect(200, "GET", f"/matches/{match_id}?min_version={version}&wait=20",
                                       token=self.token)
            if view["version"] >= version:
                return view

    def events(self) -> Iterable[list[dict]]:
        for match_id in self.matches:
            found, _ = self.http.expect(200, "GET", f"/matches/{match_id}/events?limit=1000", token=self.token)
            yield found["events"]


def _warm_up(player: Player, seconds: float = WARM_UP_SECONDS) -> None:
    """A match played before the window and not counted: the bot's pool starts its processes
    (and they import the engine) at its first decisions, once per bot, not once per match."""
    stop = threading.Event()
    threading.Timer(seconds, stop.set).start()
    player.play_until(stop)


def measure(matches: int, level: str, seconds: float, turn_seconds: int) -> dict:
    """Play the matches on a fresh stack; the bot's decision times and misses."""
    settings = {"BOT_TOKEN": BOT_TOKEN, "WAITS_PER_CLIENT": str(matches + 8), "MAX_WAITS": str(4 * matches + 32)}
    with Stack(env=settings) as stack:  # one address for every client here: a wait each, and the bot's
        stack.start_bot()
        _warm_up(Player(stack.api_port, level, turn_seconds, seed=-1))
        players = [Player(stack.api_port, level, turn_seconds, seed) for seed in range(matches)]
        stop, load = threading.Event(), os.getloadavg()
        with ThreadPoolExecutor(matches) as clients:
            playing = [clients.submit(player.play_until, stop) for player in players]
            time.sleep(seconds)
            stop.set()
            for played in playing:
                played.result()
        load_after = os.getloadavg()
        latencies, missed, opened = [], 0, 0
        for player in players:
            for events in player.events():
                taken, lost = bot_decisions(events)
                latencies += taken
                missed += lost
                opened += 1
    return {"matches": opened, "latencies": latencies, "missed": missed, "load": (load, load_after)}


def _report(level: str, result: dict, turn_seconds: int, note: str = "") -> None:
    ms, (before, _, _), (after, _, _) = result["latencies"], *result["load"]
    print(f"  {level}{note}: load average {before:.1f} before, {after:.1f} after")
    if not ms:
        print("    no decision of the bot was recorded")
        return
    inside = sum(m < turn_seconds * 1000 for m in ms)
    in_time = inside == len(ms) and not result["missed"]
    print(f"    {len(ms)} decisions in {result['matches']} matches: p50 {percentile(ms, 50):.0f} ms, "
          f"p99 {percentile(ms, 99):.0f} ms, max {max(ms):.0f} ms")
    print(f"    inside the clock: {inside} of {len(ms)}; turns the clock ran out on: {result['missed']} "
          f"-> {'every move in time' if in_time else 'NOT every move in time'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=50)
    parser.add_argument("--level", default="hard", choices=("easy", "medium", "hard", "expert"))
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--turn-seconds", type=int, default=60)
    parser.add_argument("--no-baseline", action="store_true", help="skip the same matches at medium")
    args = parser.parse_args()
    print(f"bot under load: {args.matches} bot matches at once for {args.seconds:.0f} s, {args.turn_seconds} s a "
          f"move, {os.cpu_count()} cores; the bot's time a decision, from the events")
    _report(args.level, measure(args.matches, args.level, args.seconds, args.turn_seconds), args.turn_seconds)
    if not args.no_baseline and args.level != "medium":
        baseline = measure(args.matches, "medium", args.seconds, args.turn_seconds)
        _report("medium", baseline, args.turn_seconds, " (baseline: no search)")


if __name__ == "__main__":
    main()
