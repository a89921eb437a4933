"""Cold listings: where an archived match's places in the lobby's and the players' lists go.

A sorted set costs some 27 bytes a member while small and over 100 once Redis makes it a
skiplist (128 members): too much for matches nobody plays again. When a match is archived,
:func:`chill` moves its member out of each list into the list's cold records: one string
per (span of creation days: :data:`LOBBY_SPAN_MS`, :data:`PLAYER_SPAN_MS`; id length),
fixed-width records of the creation time (6 bytes, epoch ms) and the id, appended (by SET of
the string and the record: APPEND's greedy growth would leave up to as much again unused);
and a small sorted set per list of its spans (one member per span and id length, not per
match). Every key shares the list's slot (:func:`shared.keys.cold_list`).

The move is one script per list, and idempotent: the member is taken out of the sorted set
in the same script that appends its record, so a record is appended once (a member listed
again, by a rebuild, is taken out without a second record), and a rerun finds
no member and does nothing. A list reads its sorted set, then its cold records
(:func:`newest_first`), merged by (creation time, id) as the sorted set orders them.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from shared import keys
from shared.eventstore.lua import Script

DAY_MS = 86_400_000
LOBBY_SPAN_MS = DAY_MS  # the lobby's records, a string per creation day: a page reads one day or a few
PLAYER_SPAN_MS = 32 * DAY_MS  # a player's, a string per 32 days: few keys for a player who plays now and then
_TIME_BYTES = 6

# Lua: is ``record`` one of the fixed-width records of the string ``cold`` (a match only, never a
# byte run that straddles two records)? Shared by the scripts that ask "was this match chilled?".
HOLDS_RECORD_LUA = """
local function holds_record(cold, record)
  if not cold then return false end
  local at = string.find(cold, record, 1, true)
  while at do
    if (at - 1) % #record == 0 then return true end
    at = string.find(cold, record, at + 1, true)
  end
  return false
end
"""

# KEYS[1] the list (a sorted set), KEYS[2] the day's cold records, KEYS[3] the list's cold days.
# ARGV[1] the match id, ARGV[2] its creation time (the member's score), ARGV[3] its record,
# ARGV[4] the day, ARGV[5] the day's member. Returns 1 if moved, 0 if not listed (moved before).
_CHILL = Script(HOLDS_RECORD_LUA + """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then
  return 0
end
local cold = redis.call('GET', KEYS[2])
if not holds_record(cold, ARGV[3]) then
  redis.call('SET', KEYS[2], (cold or '') .. ARGV[3])
end
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[5])
redis.call('ZREM', KEYS[1], ARGV[1])
return 1
""")


def chill(client: Any, list_key: str, match_id: str, span_ms: int) -> bool:
    """Move the match's member of ``list_key`` into the list's cold records (a string per ``span_ms`` of
    creation times); False if it is not listed there."""
    score = client.zscore(list_key, match_id)
    if score is None:
        return False
    created_at = int(score)
    day, width = created_at // span_ms, len(match_id)
    script_keys = [list_key, records_key(list_key, created_at, match_id, span_ms), keys.cold_list_days(list_key)]
    return bool(_CHILL(client, script_keys, [match_id, created_at, record_of(created_at, match_id),
                                             day, f"{day}:{width}"]))


def record_of(created_at: int, match_id: str) -> bytes:
    """A match's cold record: its creation time (6 bytes, epoch ms) and its id."""
    return created_at.to_bytes(_TIME_BYTES, "big") + match_id.encode()


def records_key(list_key: str, created_at: int, match_id: str, span_ms: int) -> str:
    """The string of ``list_key``'s cold records that holds (or will hold) the match's."""
    return keys.cold_list(list_key, created_at // span_ms, len(match_id))


def finished_records_key(player_id: str, generation: int, created_at: int, match_id: str) -> str:
    """The string of the player's finished list's cold records that holds (or will hold) the match's:
    once archived, the scoreboard's mark that the match was counted for that player."""
    return records_key(keys.player_matches(player_id, "finished", generation), created_at, match_id, PLAYER_SPAN_MS)



def newest_first(client: Any, list_key: str, span_ms: int,
                 before_ms: float | None = None) -> Iterator[tuple[int, bytes]]:
    """The list's cold records as (creation time, id), newest first (ties: the greater id first, as ZREVRANGE);
    ``span_ms``: as they were chilled; ``before_ms``: spans after that one's are not read."""
    days: dict[int, list[int]] = {}
    for member in client.zrevrange(keys.cold_list_days(list_key), 0, -1):
        day, _, width = _text(member).partition(":")
        days.setdefault(int(day), []).append(int(width))
    for day in sorted(days, reverse=True):
        if before_ms is not None and day > before_ms // span_ms:
            continue
        pipe = client.pipeline(transaction=False)
        for width in days[day]:
            pipe.get(keys.cold_list(list_key, day, width))
        records = [record for width, raw in zip(days[day], pipe.execute()) for record in _records(raw or b"", width)]
        yield from sorted(records, reverse=True)


def cold_keys(client: Any, list_key: str) -> list[str]:
    """Every key of the list's cold records: its days' set, then each day's records (to measure or drop them)."""
    days = keys.cold_list_days(list_key)
    members = [_text(member).partition(":") for member in client.zrange(days, 0, -1)]
    return [days, *(keys.cold_list(list_key, int(day), int(width)) for day, _, width in members)]


def _records(raw: bytes, width: int) -> Iterator[tuple[int, bytes]]:
    size = _TIME_BYTES + width
    for start in range(0, len(raw) - size + 1, size):
        yield int.from_bytes(raw[start:start + _TIME_BYTES], "big"), raw[start + _TIME_BYTES:start + size]


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
