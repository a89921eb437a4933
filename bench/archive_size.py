"""What an archived match costs on disk and in time: the archive's zstandard beside gzip and the raw lines.

Plays real matches to their end through the command service (the in-memory event store and
seeds: every event as the store records it, with its time and chain hash), renders each as
the archive renders it (:func:`shared.archive.archive_format.encode`'s lines), and compresses
those lines every way considered, one match at a time as the archive does. Baselines in the
same run: the raw JSON lines, and gzip -9 (what a plain ``gzip`` of an export gives). The
trained dictionary is trained on the first half of the matches and measured on the second,
as it would be trained on old matches and used on new ones.
"""
from __future__ import annotations

import argparse
import gzip
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import replace

import orjson
import zstandard

from services.api.app import Matches, act, create, join, latest
from services.api.players import Player
from shared.archive import ArchivedMatch, archive_format
from shared.eventstore import InMemoryEventStore
from shared.eventstore.schema import event_to_json
from shared.rules import Rules
from shared.rules.playthrough import random_action
from shared.seeds import InMemorySeeds

PLAYERS = {"A": Player("alice-id", "alice"), "B": Player("bob-id", "bob")}
DICTIONARY_BYTES = 16 * 1024


def play_matches(count: int, seed: int) -> list[ArchivedMatch]:
    """``count`` random matches played to their end, as the archiver takes them from the store."""
    store, seeds = InMemoryEventStore(), InMemorySeeds()
    service, rng, played = Matches(store, lambda _: None, seeds), random.Random(seed), []
    for _ in range(count):
        match_id = create(service, PLAYERS["A"], {"rules": Rules(), "first_dealer": None}).match_id
        join(service, match_id, PLAYERS["B"])
        while (state := latest(service, match_id).state).winner is None:
            action = random_action(state, rng)
            act(service, match_id, PLAYERS[action.seat.value], action.body())
        events = tuple(store.read(match_id))
        played.append(ArchivedMatch(match_id, events, seeds.get(match_id), events[-1].at))
    return played


def without_hashes(match: ArchivedMatch) -> ArchivedMatch:
    """The same match with its chain hashes blanked: how much of a record is random hex that no codec shrinks."""
    return replace(match, events=tuple(replace(event, hash="") for event in match.events))


def raw_lines(match: ArchivedMatch) -> bytes:
    """The record's bytes before compression (the header and the export's lines, as ``encode`` joins them)."""
    header = {"format": archive_format.FORMAT, "match_id": match.match_id, "events": match.count,
              "seed": match.seed, "finished_at": match.finished_at}
    return b"\n".join([orjson.dumps(header), *(orjson.dumps(event_to_json(e)) for e in match.events)]) + b"\n"


def codecs(training: list[bytes]) -> dict[str, tuple[Callable[[bytes], bytes], Callable[[bytes], bytes]]]:
    """Each way considered: (compress, decompress), the zstd ones with the archive's checksum."""
    trained = zstandard.train_dictionary(DICTIONARY_BYTES, training)
    ways: dict[str, tuple[Callable[[bytes], bytes], Callable[[bytes], bytes]]] = {
        "gzip -9": (lambda raw: gzip.compress(raw, 9, mtime=0), gzip.decompress)}
    for level in (3, 9, 19):
        compressor = zstandard.ZstdCompressor(level=level, write_checksum=True)
        ways[f"zstd {level}"] = (compressor.compress, zstandard.ZstdDecompressor().decompress)
    with_dict = zstandard.ZstdCompressor(level=9, write_checksum=True, dict_data=trained)
    ways[f"zstd 9 + {DICTIONARY_BYTES // 1024} KB dict"] = (
        with_dict.compress, zstandard.ZstdDecompressor(dict_data=trained).decompress)
    return ways


def _timed_us(call: Callable[..., object], repeats: int, *args: object) -> float:
    started = time.perf_counter()
    for _ in range(repeats):
        call(*args)
    return (time.perf_counter() - started) / repeats * 1e6


def measure(matches: list[ArchivedMatch], repeats: int) -> dict[str, dict[str, float]]:
    """Per codec: median bytes per match, ratio to raw, and median µs to compress and decompress one."""
    raws = [raw_lines(match) for match in matches]
    training, measured = raws[: len(raws) // 2], raws[len(raws) // 2:]
    figures = {"raw JSON lines": {"bytes": statistics.median(len(raw) for raw in measured), "ratio": 1.0}}
    for name, (compress, decompress) in codecs(training).items():
        packed = [compress(raw) for raw in measured]
        assert all(decompress(blob) == raw for blob, raw in zip(packed, measured))
        figures[name] = {
            "bytes": statistics.median(len(blob) for blob in packed),
            "ratio": statistics.median(len(raw) / len(blob) for raw, blob in zip(measured, packed)),
            "compress_us": statistics.median(_timed_us(compress, repeats, raw) for raw in measured),
            "decompress_us": statistics.median(_timed_us(decompress, repeats, blob) for blob in packed),
        }
    return figures


def format_round_trip(matches: list[ArchivedMatch], repeats: int) -> dict[str, float]:
    """What the archive's own ``encode``/``decode`` cost per match (JSON rendering and schema load included)."""
    blobs = [archive_format.encode(match) for match in matches]
    return {
        "encode_us": statistics.median(_timed_us(archive_format.encode, repeats, m) for m in matches),
        "decode_us": statistics.median(_timed_us(archive_format.decode, repeats, m.match_id, b)
                                       for m, b in zip(matches, blobs)),
        "bytes": statistics.median(len(blob) for blob in blobs),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5, help="timings per match, averaged")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.perf_counter()
    matches = play_matches(args.matches, args.seed)
    counts = sorted(match.count for match in matches)
    raws = sorted(len(raw_lines(match)) for match in matches)
    half = len(matches) - len(matches) // 2
    figures, own = measure(matches, args.repeats), format_round_trip(matches[-half:], args.repeats)
    print(f"archive size, {args.matches} random matches played to the end; figures over the last {half}, "
          "medians per match")
    print(f"  all {args.matches}: events per match {statistics.median(counts):.0f} [{counts[0]}..{counts[-1]}], "
          f"raw bytes {statistics.median(raws):,.0f} [{raws[0]:,}..{raws[-1]:,}]")
    print(f"  {'':28} {'bytes':>8} {'x smaller':>10} {'compress':>10} {'decompress':>11}")
    for name, row in figures.items():
        timing = (f"{row['compress_us']:>8.0f} µs {row['decompress_us']:>8.0f} µs" if "compress_us" in row else "")
        print(f"  {name:28} {row['bytes']:>8,.0f} {row['ratio']:>9.1f}x {timing}")
    hashless = [len(archive_format.encode(without_hashes(match))) for match in matches[-half:]]
    print(f"  {'zstd, chain hashes left out':28} {statistics.median(hashless):>8,.0f}   (the hashes: "
          f"{1 - statistics.median(hashless) / own['bytes']:.0%} of a record, random hex no codec shrinks)")
    print(f"  the archive's own format (zstd {archive_format.LEVEL}): {own['bytes']:,.0f} bytes, "
          f"encode {own['encode_us']:,.0f} µs, decode {own['decode_us']:,.0f} µs per match (JSON and schema included)")
    print(f"  ({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
