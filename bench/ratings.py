"""Ratings and quick pairing: the fold's throughput beside the scoreboard's, and pairing waits.

1. Fold throughput: the same synthetic season of rated results (200 players, end times
   spread over 60 days) folded by the pure fold, and recorded result by result into the
   ratings read model on a real redis-server (each record folds what waits: one result, or
   more when results arrive late); the baseline in the same run is the scoreboard's
   projection of the same matches (``record_result`` for both players) on the same server.
   A late-arrival run shuffles the delivery order (each late result refolds from its place).
2. Pairing: ``--seekers`` players (1,000 by default) with ratings spread around 1500 (±350)
   open rated seeks all at once from 16 threads through the command side (the matchmaker of
   an app on the same server), while two pairers pass every 0.25 s, each open also running a
   pass; the wait is from a seek's open to its ``paired`` notice. Double pairings: a seek or
   a player paired into more than one match (goal: 0).
"""
from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import redis

from services.api import create_app
from services.api.app import latest
from services.api.pairer import pair_until
from services.embedded_redis import EmbeddedRedis
from shared import keys
from shared.config import Config
from shared.ratings.rating_fold import DAY_MS, RatedResult, ratings_of
from shared.readmodels.rating_store import RedisRatings
from shared.readmodels.scoreboard import Scoreboard
from shared.rules import Rules

from .stats import percentile


def season(count: int, players: int = 200, seed: int = 1) -> list[RatedResult]:
    rng = random.Random(seed)
    ids = [f"p{n:04d}" for n in range(players)]
    results = []
    for index in range(count):
        a, b = rng.sample(ids, 2)
        results.append(RatedResult(rng.randrange(60 * DAY_MS), f"m{index:06d}", a, b, rng.random() < 0.5))
    return sorted(results, key=lambda r: r.key)


def fold_rates(client: redis.Redis, count: int) -> dict[str, float]:
    """Results a second: the pure fold, the read model in order and shuffled, and the scoreboard's projection."""
    results = season(count)
    started = time.perf_counter()
    ratings_of(results)
    pure = count / (time.perf_counter() - started)
    client.flushall()
    store = RedisRatings(client)
    started = time.perf_counter()
    for result in results:
        store.record(result)
    in_order = count / (time.perf_counter() - started)
    late = list(results)
    random.Random(2).shuffle(late[-200:])  # the last 200 arrive out of order (a worker caught up late)
    client.flushall()
    store, started = RedisRatings(client), time.perf_counter()
    for result in late:
        store.record(result)
    shuffled_tail = count / (time.perf_counter() - started)
    client.flushall()
    board, started = Scoreboard(client), time.perf_counter()
    for result in results:
        board.record_result(result.match_id, result.player_a, result.player_a, result.a_won, 1, 12, 6, 0)
        board.record_result(result.match_id, result.player_b, result.player_b, not result.a_won, 1, 6, 12, 0)
    scoreboard = count / (time.perf_counter() - started)
    bytes_per_match = _bytes_per_match(client, count)
    return {"pure": pure, "in_order": in_order, "late_tail": shuffled_tail, "scoreboard": scoreboard,
            "bytes": bytes_per_match}


def _bytes_per_match(client: redis.Redis, count: int) -> float:
    """What the ratings keep in Redis per rated match (MEMORY USAGE of their keys, the last run's)."""
    client.flushall()
    store = RedisRatings(client)
    for result in season(count, seed=3):
        store.record(result)
    histories = client.scan_iter(match=keys.player_ratings_pattern(0), count=1000)
    used = sum(client.memory_usage(key) or 0 for key in histories)
    used += client.memory_usage(keys.leaderboard()) or 0
    return used / count


def pairing_waits(client: redis.Redis, url: str, seekers: int, data_dir: Path) -> dict[str, float]:
    """Pairing waits (s) and double pairings for ``seekers`` concurrent rated seeks."""
    client.flushall()
    config = Config.from_env({"REDIS_URL": url, "DATA_DIR": str(data_dir), "RATE_LIMITS": "off", "METRICS": "off"})
    ctx = create_app(config).extensions["truc"]
    rng = random.Random(4)
    players = [ctx.players.register(f"seeker{n}")[0] for n in range(seekers)]
    ratings = {player.id: rng.gauss(1500, 350) for player in players}
    ctx.matchmaker.rating_of = lambda player_id: ratings[player_id]
    watch = PairingWatch(ctx.matchmaker)
    stop = threading.Event()
    pairers = [threading.Thread(target=pair_until, args=(ctx.matchmaker, stop)) for _ in range(2)]
    for thread in pairers:
        thread.start()
    rng.shuffle(players)
    seekers_threads = [threading.Thread(target=watch.seek_all, args=(players[n::16],)) for n in range(16)]
    for thread in seekers_threads:
        thread.start()
    for thread in seekers_threads:
        thread.join()
    watch.wait_for_all(60)
    stop.set()
    for thread in pairers:
        thread.join()
    waits = watch.waits()
    doubles = sum(len(times) - 1 for times in watch.told.values()) + _players_in_two(ctx, watch.told)
    return {"p50": percentile(waits, 50), "p99": percentile(waits, 99), "paired": len(waits),
            "unpaired": len(watch.opened) - len(waits), "doubles": doubles, "mean": statistics.fmean(waits)}


class PairingWatch:
    """When each seek was opened, and each ``paired`` notice told of it (through the matchmaker's own feed)."""

    def __init__(self, matchmaker) -> None:
        self.matchmaker, self.lock = matchmaker, threading.Lock()
        self.opened: dict[str, float] = {}
        self.told: dict[str, list[tuple[float, str]]] = {}
        self._tell, matchmaker.tell = matchmaker.tell, self.tell

    def tell(self, notices):
        now = time.perf_counter()
        with self.lock:
            for notice in notices:
                if notice.kind == "paired":
                    self.told.setdefault(notice.data["seek_id"], []).append((now, notice.data["match_id"]))
        return self._tell(notices)

    def seek_all(self, players) -> None:
        for player in players:
            started = time.perf_counter()
            seek = self.matchmaker.seek(player, True, Rules())
            with self.lock:
                self.opened[seek.id] = started

    def wait_for_all(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while len(self.told) < len(self.opened) - 1 and time.monotonic() < deadline:
            time.sleep(0.05)

    def waits(self) -> list[float]:
        return [self.told[seek_id][0][0] - started for seek_id, started in self.opened.items() if seek_id in self.told]


def _players_in_two(ctx, told) -> int:
    """Players seated in more than one match made by the pairing."""
    match_ids = {entry[1] for times in told.values() for entry in times}
    seated = Counter(player.id for match_id in match_ids
                     for player in latest(ctx.matches, match_id).state.players if player is not None)
    return sum(count - 1 for count in seated.values() if count > 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=int, default=5000)
    parser.add_argument("--seekers", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedRedis(Path(tmp) / "redis").start()
        try:
            client = redis.Redis.from_url(server.url)
            rates = fold_rates(client, args.results)
            waits = pairing_waits(client, server.url, args.seekers, Path(tmp))
        finally:
            server.stop()
    print(f"ratings fold, {args.results} results (same run, same redis-server):")
    print(f"  pure fold:                          {rates['pure']:>10,.0f} results/s")
    print(f"  ratings read model, in order:       {rates['in_order']:>10,.0f} results/s")
    print(f"  ratings read model, last 200 late:  {rates['late_tail']:>10,.0f} results/s")
    print(f"  baseline, scoreboard projection:    {rates['scoreboard']:>10,.0f} results/s")
    print(f"  Redis kept per rated match:         {rates['bytes']:>10,.0f} bytes "
          "(its 2 history entries: no list of every result is kept)")
    print(f"pairing, {args.seekers} concurrent rated seekers (ratings 1500 ± 350):")
    print(f"  wait p50 {waits['p50']:.3f} s, p99 {waits['p99']:.3f} s (goal p99 < 2 s): "
          f"{'met' if waits['p99'] < 2 else 'NOT MET'}")
    print(f"  paired {waits['paired']}, unpaired {waits['unpaired']}, double pairings {waits['doubles']} (goal 0)")


if __name__ == "__main__":
    main()
