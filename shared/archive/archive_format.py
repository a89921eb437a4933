"""The bytes an archive keeps for one match: the export's JSON lines, compressed with zstandard.

A header ``{"format", "match_id", "events", "seed", "finished_at"}``, then one line per
event rendered as ``truc export`` renders it (:func:`shared.eventstore.schema.event_to_json`),
so an archived match reads back to exactly the values recorded. The frame carries its
content size and checksum, so a truncated or damaged file is refused, never half read.
"""

from __future__ import annotations

import orjson
import zstandard
from marshmallow import ValidationError

from shared.archive.port import ArchivedMatch, DamagedArchiveError
from shared.eventstore.schema import event_from_json, event_to_json

FORMAT = "truc-archive/1"
# zstd's default level. Measured (bench/archive_size.py, 100 real matches): level 9 saves 0.3 %
# for 5x the time, 19 saves 6 % for 100x; gzip -9 is 7 % larger and 6x slower. Some 60 % of a
# record are the events' chain hashes, random hex no level shrinks.
LEVEL = 3
_MAX_BYTES = 64 * 1024 * 1024  # no archived match is near this; a hostile frame is refused


def encode(match: ArchivedMatch) -> bytes:
    """The compressed record of ``match`` (deterministic: the same match, the same bytes)."""
    header = {"format": FORMAT, "match_id": match.match_id, "events": match.count,
              "seed": match.seed, "finished_at": match.finished_at, "players": dict(match.players)}
    lines = [orjson.dumps(header), *(orjson.dumps(event_to_json(event)) for event in match.events)]
    return zstandard.ZstdCompressor(level=LEVEL, write_checksum=True).compress(b"\n".join(lines) + b"\n")


def decode(match_id: str, blob: bytes) -> ArchivedMatch:
    """The match ``blob`` records; :class:`DamagedArchiveError` unless it is whole and ``match_id``'s."""
    try:
        text = zstandard.ZstdDecompressor().decompress(blob, max_output_size=_MAX_BYTES)
        header, *lines = [orjson.loads(line) for line in text.splitlines() if line]
        events = tuple(event_from_json(match_id, line) for line in lines)
    except (zstandard.ZstdError, orjson.JSONDecodeError, ValidationError, ValueError, TypeError) as error:
        raise DamagedArchiveError(f"archived match {match_id!r} does not decode: {error}") from error
    if not isinstance(header, dict) or header.get("format") != FORMAT or header.get("match_id") != match_id:
        raise DamagedArchiveError(f"archived record under {match_id!r} is not that match's")
    if header.get("events") != len(events) or [e.version for e in events] != list(range(1, len(events) + 1)):
        raise DamagedArchiveError(f"archived match {match_id!r} is not whole")
    players = header.get("players") or {}
    if not isinstance(players, dict) or not all(isinstance(v, str) for v in players.values()):
        raise DamagedArchiveError(f"archived match {match_id!r} names its players wrongly")
    return ArchivedMatch(match_id, events, header.get("seed"), header.get("finished_at"), players)
