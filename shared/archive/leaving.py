"""The one atomic step that takes a verified match out of Redis, leaving its index entry.

Every key of a match shares its hash tag, so one script, on one node, checks that the
stream is still the one verified (its length and chain head), that nothing waits to be
projected and that the views served show its last event, and only then writes the index
entry and deletes the stream, the seed, the append tokens and refusals, the catch-up flag
and the views of every generation. A crash leaves all of them or none of them.

What lies outside the match's slot (its places in the lists, the scoreboard's guards) is
made compact after the script, by :mod:`shared.readmodels.retiring`.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shared import keys
from shared.archive.index import IndexEntry
from shared.eventstore.lua import Script

LEFT, ALREADY, CHANGED, UNPROJECTED = 1, 2, 0, 3

# KEYS[1] the stream, KEYS[2] the index entry, KEYS[3] the unprojected mark, KEYS[4] the
# served views, KEYS[5..] the other keys that leave (seed, tokens, refusals, flag, views).
# ARGV[1] the event count verified, ARGV[2] its chain head, ARGV[3] the index entry.
# Returns 1 once gone, 2 if archived before, 0 if the stream is not the one verified,
# 3 if some event of it is not projected yet (its views are behind, or it carries its mark).
_LEAVE = Script("""
if redis.call('EXISTS', KEYS[2]) == 1 then
  return 2
end
if redis.call('XLEN', KEYS[1]) ~= tonumber(ARGV[1]) then
  return 0
end
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1]
local fields = last[2]
local head = ''
for i = 1, #fields, 2 do
  if fields[i] == 'h' then head = fields[i + 1] end
end
if head ~= ARGV[2] then
  return 0
end
if redis.call('EXISTS', KEYS[3]) == 1 or redis.call('HGET', KEYS[4], 'version') ~= ARGV[1] then
  return 3
end
redis.call('SET', KEYS[2], ARGV[3])
redis.call('DEL', KEYS[1], KEYS[3], unpack(KEYS, 4))
return 1
""")


def leaving_keys(match_id: str, generations: Sequence[int]) -> list[str]:
    """The keys the leave script takes, in its order: every per-match key but the index entry's."""
    served, *others = generations
    return [keys.match_events(match_id), keys.match_archived(match_id), keys.match_unprojected(match_id),
            keys.match_views(match_id, served), keys.match_seed(match_id), keys.match_tokens(match_id),
            keys.match_refusals(match_id), keys.match_catch_up(match_id),
            *(keys.match_views(match_id, generation) for generation in others)]


def leave(client: Any, match_id: str, entry: IndexEntry, generations: Sequence[int]) -> int:
    """Write the index entry and delete the match's keys, atomically; LEFT, ALREADY, CHANGED or UNPROJECTED.

    ``generations``: the one served first, then every other whose views may hold the match.
    """
    script_keys = leaving_keys(match_id, generations)
    return int(_LEAVE(client, script_keys, [entry.count, entry.head, entry.encode()]))
