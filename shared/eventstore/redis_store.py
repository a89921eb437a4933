"""The event store on Redis Streams: one stream per match, gapless versions.

Layout (key names come from :mod:`shared.eventstore.keys` only):

- ``truc:{m:<id>}:events`` - a stream whose entry ``n-0`` is the event of version
  ``n``, with fields ``t`` (type), ``s`` (schema version), ``at`` (epoch ms) and
  ``d`` (data, JSON bytes). Streams are NEVER trimmed (no XTRIM, no MAXLEN): the
  stream is the only source of truth, and XLEN *is* the current version.
- ``truc:{m:<id>}:unprojected`` - the version of the latest append, set by the
  append itself; the projector clears it once it has folded that far.

Why a Lua append rather than WATCH/MULTI/EXEC: both let exactly one racer win,
but the script is one round trip (~8k appends/s for one client, measured) where
WATCH costs three (~2.9k/s). Both keys of the script share the match's hash tag
and are declared in KEYS, so it runs unchanged on Redis Cluster. Scripts are
sent as raw EVALSHA (falling back to EVAL on NOSCRIPT) because redis-py's
``Script`` object cannot run inside a cluster pipeline.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from shared.eventstore import keys
from shared.eventstore.model import (
    AppendToken,
    Clock,
    ConcurrencyError,
    CorruptEventError,
    DuplicateAppendError,
    NewEvent,
    StoredEvent,
    TokenRecord,
    check_append,
    check_import,
    check_read,
    decode_data,
    encode_data,
    genesis_hash,
    link_hashes,
    system_clock,
)
from shared.eventstore.scripts import Script

# KEYS[1] events stream, KEYS[2] unprojected mark, KEYS[3] append tokens (a hash).
# ARGV[1] expected version, ARGV[2] timestamp (ms), ARGV[3] token key ('' for none),
# ARGV[4] token fingerprint, then (type, schema, data, chain hash) quadruples.
# Returns {1, new_version} on success, {0, actual_version} on a version mismatch,
# {2, token_record} when the token was used before (checked first: a retry of an
# append that succeeded must not look like a conflict).
# The timestamp comes from the caller (not TIME) so the script stays deterministic.
_APPEND_LUA = """
if ARGV[3] ~= '' then
  local used = redis.call('HGET', KEYS[3], ARGV[3])
  if used then
    return {2, used}
  end
end
local actual = redis.call('XLEN', KEYS[1])
if actual ~= tonumber(ARGV[1]) then
  return {0, actual}
end
local version = actual
for i = 5, #ARGV, 4 do
  version = version + 1
  redis.call('XADD', KEYS[1], string.format('%d-0', version),
             't', ARGV[i], 's', ARGV[i + 1], 'at', ARGV[2], 'd', ARGV[i + 2], 'h', ARGV[i + 3])
end
redis.call('SET', KEYS[2], version)
if ARGV[3] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[3], string.format('%d %d %s', actual + 1, version, ARGV[4]))
end
return {1, version}
"""

# KEYS[1] events stream, KEYS[2] unprojected mark; ARGV: (type, schema, at, data, hash)
# per event, versions 1..n. Writes an exported match verbatim, only into an empty stream.
_IMPORT_LUA = """
local actual = redis.call('XLEN', KEYS[1])
if actual ~= 0 then
  return {0, actual}
end
local version = 0
for i = 1, #ARGV, 5 do
  version = version + 1
  redis.call('XADD', KEYS[1], string.format('%d-0', version),
             't', ARGV[i], 's', ARGV[i + 1], 'at', ARGV[i + 2], 'd', ARGV[i + 3], 'h', ARGV[i + 4])
end
redis.call('SET', KEYS[2], version)
return {1, version}
"""

# KEYS[1] unprojected mark; ARGV[1] the version the projector has folded up to.
# Compare-and-delete: a mark set by a newer append survives. Returns 1 if no mark remains.
_MARK_PROJECTED_LUA = """
local mark = redis.call('GET', KEYS[1])
if not mark then
  return 1
end
if tonumber(mark) <= tonumber(ARGV[1]) then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
"""

_SCAN_COUNT = 1000  # keys per SCAN step: few round trips, short server pauses


_append = Script(_APPEND_LUA)
_mark_projected = Script(_MARK_PROJECTED_LUA)
_import = Script(_IMPORT_LUA)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _to_stored(match_id: str, entry_id: bytes | str, fields: dict[Any, Any]) -> StoredEvent:
    """Decode one XRANGE entry, whether the client decodes responses or not."""
    by_name = {_text(name): value for name, value in fields.items()}
    version = int(_text(entry_id).split("-", 1)[0])
    try:
        return StoredEvent(
            match_id=match_id,
            version=version,
            type=_text(by_name["t"]),
            schema_version=int(by_name["s"]),
            at=int(by_name["at"]),
            data=decode_data(by_name["d"]),
            hash=_text(by_name.get("h", b"")),
        )
    except (KeyError, ValueError, UnicodeDecodeError) as error:  # orjson's decode error is a ValueError
        raise CorruptEventError(match_id, version, error) from None


class RedisEventStore:
    """The :class:`~shared.eventstore.model.EventStore` contract on Redis (or a Redis Cluster).

    ``client`` is a ``redis.Redis``, ``redis.cluster.RedisCluster`` or a fakeredis
    client, with ``decode_responses`` either way.
    """

    def __init__(self, client: Any, clock: Clock = system_clock) -> None:
        self._client = client
        self._clock = clock
        # The chain link of each match's latest append by this process: the next append
        # by this process links to it without reading it back (events never change).
        self._heads: dict[str, tuple[int, str]] = {}

    def append(
        self, match_id: str, events: Sequence[NewEvent], expected_version: int,
        token: AppendToken | None = None,
    ) -> int:
        """Append if the stream is at ``expected_version``; return the new version.

        One atomic script: version check, XADD of every event, and the
        "unprojected" mark, so no event can exist without its mark.
        """
        check_append(events, expected_version)
        at = self._clock()
        args: list[Any] = [expected_version, at]
        args += [token.key, token.fingerprint] if token else ["", ""]
        encoded = [(event.type, event.schema_version, encode_data(event.data)) for event in events]
        links = link_hashes(self._head(match_id, expected_version), expected_version + 1, encoded, at)
        for (type_, schema, data), link in zip(encoded, links):
            args += [type_, schema, data, link]
        script_keys = [
            keys.match_events(match_id), keys.match_unprojected(match_id), keys.match_tokens(match_id),
        ]
        status, value = _append(self._client, script_keys, args)
        if int(status) == 2:
            raise DuplicateAppendError(TokenRecord.decode(value))
        if not int(status):
            raise ConcurrencyError(expected_version, int(value), match_id)
        if len(self._heads) > 65_536:
            self._heads.clear()
        self._heads[match_id] = (int(value), links[-1])
        return int(value)

    def _head(self, match_id: str, version: int) -> str:
        """The chain link of the event at ``version`` (the genesis link before the first)."""
        if version == 0:
            return genesis_hash(match_id)
        cached = self._heads.get(match_id)
        if cached is not None and cached[0] == version:
            return cached[1]
        entries = self._client.xrange(keys.match_events(match_id), min=f"{version}-0", max=f"{version}-0")
        if not entries:
            return ""  # the stream is not at ``version``: the append's check refuses it
        return _text(entries[0][1].get(b"h", entries[0][1].get("h", b"")))

    def remember_refusal(self, match_id: str, token: AppendToken, refusal: str) -> TokenRecord | None:
        """Claim ``token`` for a refused request; the record that was there first, if any."""
        record = TokenRecord(token.fingerprint, 0, 0, refusal)
        tokens = keys.match_tokens(match_id)
        if self._client.hsetnx(tokens, token.key, record.encode()):
            return None
        return TokenRecord.decode(self._client.hget(tokens, token.key))

    def import_events(self, match_id: str, events: Sequence[StoredEvent]) -> int:
        """Write an exported match verbatim (one script) into an empty stream."""
        check_import(events)
        args: list[Any] = []
        for e in events:
            args += [e.type, e.schema_version, e.at, encode_data(e.data), e.hash]
        script_keys = [keys.match_events(match_id), keys.match_unprojected(match_id)]
        ok, version = _import(self._client, script_keys, args)
        if not int(ok):
            raise ConcurrencyError(0, int(version), match_id)
        return int(version)

    def token(self, match_id: str, key: str) -> TokenRecord | None:
        """What the append with token ``key`` recorded in this match, if any."""
        raw = self._client.hget(keys.match_tokens(match_id), key)
        return None if raw is None else TokenRecord.decode(raw)

    def read(
        self, match_id: str, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        """Events with ``version > after``, oldest first, at most ``limit``."""
        stream = keys.match_events(match_id)
        check_read(after, limit)
        if limit == 0:
            return []
        # Version n is entry n-0, so "after" maps straight onto an inclusive start ID.
        entries = self._client.xrange(stream, min=f"{after + 1}-0", max="+", count=limit)
        return [_to_stored(match_id, entry_id, fields) for entry_id, fields in entries]

    def version(self, match_id: str) -> int:
        """The latest version of the match; 0 if it has no events."""
        return int(self._client.xlen(keys.match_events(match_id)))

    def unprojected(self) -> Iterator[str]:
        """Ids of the matches carrying the unprojected mark.

        This is the backstop sweep: the normal path is the catch-up job the API
        enqueues after each append. SCAN may repeat a key; we yield each id once.
        """
        return self._scan_match_ids(keys.MATCH_UNPROJECTED_PATTERN)

    def mark_projected(self, match_id: str, version: int) -> bool:
        """Clear the mark unless a newer append set it; True if no mark remains."""
        cleared = _mark_projected(self._client, [keys.match_unprojected(match_id)], [version])
        return bool(int(cleared))

    def match_ids(self) -> Iterator[str]:
        """Ids of every match with at least one event (SCAN: for rebuilds and sweeps)."""
        return self._scan_match_ids(keys.MATCH_EVENTS_PATTERN)

    def _scan_match_ids(self, pattern: str) -> Iterator[str]:
        seen: set[str] = set()
        for key in self._client.scan_iter(match=pattern, count=_SCAN_COUNT):
            match_id = keys.match_id_from_key(key)
            if match_id not in seen:
                seen.add(match_id)
                yield match_id
