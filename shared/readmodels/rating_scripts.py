"""The ratings read model's Lua scripts on Redis (:mod:`shared.readmodels.rating_store` runs them).

Each takes its keys in one slot: the fold's own under ``{ratings}``, a player's history, cold part
and fence under the player's, the leaderboard and its fence under the board's. Every write but a
result's is fenced: it refuses a fence lower than the highest that wrote there.
"""
from __future__ import annotations

from shared.eventstore.lua import Script
from shared.readmodels.rating_cold import HEADER_BYTES

# KEYS[1] pending. ARGV[1] the match's end (ms), ARGV[2] the result. Returns 1 if it was not pending.
RECORD = Script("""
return redis.call('ZADD', KEYS[1], 'NX', ARGV[1], ARGV[2])
""")

# KEYS[1] pending, KEYS[2] the chills waiting, KEYS[3] lock. ARGV[1] token, ARGV[2] lock ms, ARGV[3] how
# many results were folded, then those results, then the chills done.
# Returns 1 if the lock was let go (nothing waits), 0 if kept (fold again).
RELEASE = Script("""
local folded = tonumber(ARGV[3])
for i = 4, 3 + folded do redis.call('ZREM', KEYS[1], ARGV[i]) end
for i = 4 + folded, #ARGV do redis.call('ZREM', KEYS[2], ARGV[i]) end
if redis.call('GET', KEYS[3]) ~= ARGV[1] then return 1 end
if redis.call('ZCARD', KEYS[1]) + redis.call('ZCARD', KEYS[2]) > 0 then
  redis.call('PEXPIRE', KEYS[3], ARGV[2])
  return 0
end
redis.call('DEL', KEYS[3])
return 1
""")


# KEYS[1] the lock. ARGV[1] token, ARGV[2] lock ms. Returns 1 if the token holds the lock (kept LOCK_MS on).
HOLDS = Script("""
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
""")

# KEYS[1] a player's history, KEYS[2] its fence, KEYS[3] its cold part. ARGV[1] the fold's fence,
# ARGV[2] the cold part's length the fold read, ARGV[3] the place's end (ms), ARGV[4] the place's
# match id, then score, member pairs: the entries from the place on. Returns 1 if written, 0 if a
# newer fold wrote here already, -1 if entries moved to the cold part since the fold read them
# (a folder that lost its lock, stalled in a chill): nothing written, the fold starts again.
REPLACE = Script("""
if tonumber(ARGV[1]) < tonumber(redis.call('GET', KEYS[2]) or '0') then return 0 end
if redis.call('STRLEN', KEYS[3]) ~= tonumber(ARGV[2]) then return -1 end
redis.call('SET', KEYS[2], ARGV[1])
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[3], ARGV[3])) do
  if string.match(member, '^[^ ]+') >= ARGV[4] then redis.call('ZREM', KEYS[1], member) end
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '(' .. ARGV[3], '+inf')
for i = 5, #ARGV, 2 do redis.call('ZADD', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 1
""")

# KEYS[1] the leaderboard, KEYS[2] its fence. ARGV[1] the fold's fence, then player, rating pairs
# (an empty rating: off the board). Returns 1 if written, 0 if a newer fold wrote here already.
PLACE = Script("""
if tonumber(ARGV[1]) < tonumber(redis.call('GET', KEYS[2]) or '0') then return 0 end
redis.call('SET', KEYS[2], ARGV[1])
for i = 2, #ARGV, 2 do
  if ARGV[i + 1] == '' then redis.call('ZREM', KEYS[1], ARGV[i])
  else redis.call('ZADD', KEYS[1], ARGV[i + 1], ARGV[i]) end
end
return 1
""")


# KEYS[1] a player's history, KEYS[2] its cold part, KEYS[3] its fence. ARGV[1] the fold's fence,
# ARGV[2] the new header, ARGV[3] the records to add, then the members they stand for (the
# history's oldest). Returns 1 if moved, 0 if a newer fold wrote here or they moved already.
CHILL = Script("""
if tonumber(ARGV[1]) < tonumber(redis.call('GET', KEYS[3]) or '0') then return 0 end
for i = 4, #ARGV do
  if not redis.call('ZSCORE', KEYS[1], ARGV[i]) then return 0 end
end
redis.call('SET', KEYS[3], ARGV[1])
local cold = redis.call('GET', KEYS[2])
redis.call('SET', KEYS[2], ARGV[2] .. (cold and string.sub(cold, HEADER_BYTES + 1) or '') .. ARGV[3])
for i = 4, #ARGV do redis.call('ZREM', KEYS[1], ARGV[i]) end
return 1
""".replace("HEADER_BYTES", str(HEADER_BYTES)))

# KEYS[1] a player's history, KEYS[2] its cold part, KEYS[3] its fence. ARGV[1] the fold's fence,
# ARGV[2] the cold part whole ('' for none), then score, member pairs: the history whole.
# Returns 1 if written, 0 if a newer fold wrote here already.
REWRITE = Script("""
if tonumber(ARGV[1]) < tonumber(redis.call('GET', KEYS[3]) or '0') then return 0 end
redis.call('SET', KEYS[3], ARGV[1])
redis.call('DEL', KEYS[1])
if ARGV[2] == '' then redis.call('DEL', KEYS[2]) else redis.call('SET', KEYS[2], ARGV[2]) end
for i = 3, #ARGV, 2 do redis.call('ZADD', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 1
""")


# KEYS[1] a player's history, KEYS[2] its cold part. ARGV[1] after, ARGV[2] limit, ARGV[3] the header's
# bytes, ARGV[4] a record's. One read of a window of the history (a chill moves no entry under it):
# {cold records, header, last record, the cold records from the first up to the window's end (if it
# starts among them), the hot entries it needs, with their scores}.
HISTORY = Script("""
local after, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
local header_bytes, record_bytes = tonumber(ARGV[3]), tonumber(ARGV[4])
local length = redis.call('STRLEN', KEYS[2])
local count = 0
if length > header_bytes then count = math.floor((length - header_bytes) / record_bytes) end
local header = redis.call('GETRANGE', KEYS[2], 0, header_bytes - 1)
local last = redis.call('GETRANGE', KEYS[2], -record_bytes, -1)
local finish = after + limit
if after >= count then
  local start = math.max(after - 1 - count, 0)
  return {count, header, last, '', redis.call('ZRANGE', KEYS[1], start, finish - 1 - count, 'WITHSCORES')}
end
local cold = redis.call('GETRANGE', KEYS[2], header_bytes, header_bytes + math.min(finish, count) * record_bytes - 1)
local hot = {}
if finish > count then hot = redis.call('ZRANGE', KEYS[1], 0, finish - 1 - count, 'WITHSCORES') end
return {count, header, last, cold, hot}
""")
