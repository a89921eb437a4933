"""The Redis event store's Lua scripts, and how any Lua script of the services is run.

Scripts are sent as raw EVALSHA (falling back to EVAL on NOSCRIPT) because redis-py's
``Script`` object cannot run inside a cluster pipeline. Every key a script touches must be
passed in KEYS, all in one hash-tag slot (the store's: all of one match's), so it runs
unchanged on a Redis Cluster. The store's timestamps come from the caller (not TIME) so its
scripts stay deterministic.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from redis.exceptions import NoScriptError


class Script:
    """A Lua script run by SHA, loaded on demand; works on redis.Redis and RedisCluster."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()
        # (command, body) pairs to send in turn: by SHA, then, on NOSCRIPT (first use on this
        # node, or after SCRIPT FLUSH or a failover), the source, which loads it.
        self.attempts = (("EVALSHA", self.sha), ("EVAL", self.source))

    def by_sha(self, script_keys: Sequence[str], args: Sequence[Any]) -> tuple[Any, ...]:
        """The script as one command by its SHA, for a pipeline of the caller's (NOSCRIPT is the
        caller's to meet: any ``__call__`` loads the script)."""
        return ("EVALSHA", self.sha, len(script_keys), *script_keys, *args)

    def pipelined(
        self, client: Any, script_keys: Sequence[str], args: Sequence[Any], before: Sequence[tuple[Any, ...]] = (),
        after: Sequence[tuple[Any, ...]] = (),
    ) -> tuple[Any, tuple[Any, ...]]:
        """The script in one round trip on one server's ``client``, with commands ``before`` it (then all
        in one MULTI/EXEC) and ``after`` it: its answer, and the replies of ``after`` (errors among them
        the caller's to read). An error of the script or of a ``before`` command is raised; on NOSCRIPT
        the whole round trip is sent again, by source."""
        for command, body in self.attempts:
            pipe = client.pipeline(transaction=bool(before))
            for sent in before:
                pipe.execute_command(*sent)
            pipe.execute_command(command, body, len(script_keys), *script_keys, *args)
            for sent in after:
                pipe.execute_command(*sent)
            replies = pipe.execute(raise_on_error=False)
            answer = replies[len(before)]
            if isinstance(answer, NoScriptError):
                continue  # first use on this server (or after SCRIPT FLUSH or a failover): EVAL loads it
            for reply in replies[:len(before) + 1]:
                if isinstance(reply, Exception):
                    raise reply
            return answer, tuple(replies[len(before) + 1:])
        raise AssertionError("EVAL never answers NOSCRIPT")

    def __call__(self, client: Any, script_keys: Sequence[str], args: Sequence[Any]) -> Any:
        """Run the script on ``client`` with ``script_keys`` as KEYS and ``args`` as ARGV."""
        (by_sha, sha), (by_source, source) = self.attempts
        try:
            return client.execute_command(by_sha, sha, len(script_keys), *script_keys, *args)
        except NoScriptError:
            return client.execute_command(by_source, source, len(script_keys), *script_keys, *args)


# KEYS[1] events stream, KEYS[2] unprojected mark, KEYS[3] append tokens (a hash),
# KEYS[4] the catch-up flag, KEYS[5] remembered refusals, KEYS[6] the unprojected index.
# ARGV[1] expected version, ARGV[2] timestamp (ms), ARGV[3] token key ('' for none),
# ARGV[4] token fingerprint, ARGV[5] the flag's lifetime (ms), ARGV[6] the match id,
# ARGV[7] the channel told of every append (the match id is published on it: live streams
# wake on it, see services/api/fanout.py), then (type, schema, data, chain hash) quadruples.
# Returns {1, new_version, ask} on success, where ask is 1 if this append set the catch-up
# flag (the caller asks the projector for a catch-up) and 0 if it was set already (a
# catch-up is queued that has not read the stream yet: it will fold these events too);
# {0, actual_version} on a version mismatch; {2, token_record} when the token was used
# before (checked first: a retry of an append that succeeded must not look like a conflict).
APPEND = Script("""
if ARGV[3] ~= '' then
  local used = redis.call('HGET', KEYS[3], ARGV[3]) or redis.call('HGET', KEYS[5], ARGV[3])
  if used then
    return {2, used}
  end
end
local actual = redis.call('XLEN', KEYS[1])
if actual ~= tonumber(ARGV[1]) then
  return {0, actual}
end
local version = actual
for i = 8, #ARGV, 4 do
  version = version + 1
  redis.call('XADD', KEYS[1], string.format('%d-0', version),
             't', ARGV[i], 's', ARGV[i + 1], 'at', ARGV[2], 'd', ARGV[i + 2], 'h', ARGV[i + 3])
end
redis.call('SET', KEYS[2], version)
redis.call('SADD', KEYS[6], ARGV[6])
redis.call('PUBLISH', ARGV[7], ARGV[6])
if ARGV[3] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[3], string.format('%d %d %s', actual + 1, version, ARGV[4]))
end
local ask = 0
if redis.call('SET', KEYS[4], version, 'NX', 'PX', ARGV[5]) then
  ask = 1
end
return {1, version, ask}
""")

# KEYS[1] the match's append tokens, KEYS[2] its remembered refusals; ARGV[1] the token key,
# ARGV[2] the refusal's record, ARGV[3] how many refusals a match keeps, ARGV[4] for how many
# seconds after the last one. Returns the record already held for the key, if any (nil:
# claimed, or past the cap and not kept).
REMEMBER_REFUSAL = Script("""
local used = redis.call('HGET', KEYS[1], ARGV[1]) or redis.call('HGET', KEYS[2], ARGV[1])
if used then
  return used
end
if redis.call('HLEN', KEYS[2]) < tonumber(ARGV[3]) then
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
  redis.call('EXPIRE', KEYS[2], ARGV[4])
end
return false
""")

# KEYS[1] events stream, KEYS[2] unprojected mark, KEYS[3] the unprojected index;
# ARGV[1] the match id, then (type, schema, at, data, hash) per event, versions 1..n.
# Writes an exported match verbatim, only into an empty stream.
IMPORT = Script("""
local actual = redis.call('XLEN', KEYS[1])
if actual ~= 0 then
  return {0, actual}
end
local version = 0
for i = 2, #ARGV, 5 do
  version = version + 1
  redis.call('XADD', KEYS[1], string.format('%d-0', version),
             't', ARGV[i], 's', ARGV[i + 1], 'at', ARGV[i + 2], 'd', ARGV[i + 3], 'h', ARGV[i + 4])
end
redis.call('SET', KEYS[2], version)
redis.call('SADD', KEYS[3], ARGV[1])
return {1, version}
""")

# KEYS[1] unprojected mark, KEYS[2] the unprojected index; ARGV[1] the version the
# projector has folded up to, ARGV[2] the match id. Compare-and-delete: a mark set by a
# newer append survives. Returns 1 if no mark remains.
MARK_PROJECTED = Script("""
local mark = redis.call('GET', KEYS[1])
if not mark then
  redis.call('SREM', KEYS[2], ARGV[2])
  return 1
end
if tonumber(mark) <= tonumber(ARGV[1]) then
  redis.call('DEL', KEYS[1])
  redis.call('SREM', KEYS[2], ARGV[2])
  return 1
end
return 0
""")

# KEYS[1] the match's append tokens, KEYS[2] its remembered refusals; ARGV[1] the token key.
# The record held for the key, like two HGETs; an append's record is written again as it is,
# so that a WAIT on the same connection waits until a replica has it (a read alone would not).
CONFIRM_TOKEN = Script("""
local used = redis.call('HGET', KEYS[1], ARGV[1])
if used then
  redis.call('HSET', KEYS[1], ARGV[1], used)
  return used
end
return redis.call('HGET', KEYS[2], ARGV[1])
""")

# KEYS[1] events stream, KEYS[2] the stream being rewritten, KEYS[3] the match's re-chainings;
# ARGV[1] the version the stream must be at, ARGV[2] its head (the last event's chain hash),
# ARGV[3] the re-chaining's record, then (type, schema, at, data, hash) per event, versions 1..n.
# Replaces the whole stream (written aside, then renamed over it) and records the re-chaining,
# only if nothing was appended or rewritten since it was read. Returns 1, or 0 (read it again).
RECHAIN = Script("""
if redis.call('XLEN', KEYS[1]) ~= tonumber(ARGV[1]) then
  return 0
end
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1][2]
local head = nil
for i = 1, #last, 2 do
  if last[i] == 'h' then head = last[i + 1] end
end
if head ~= ARGV[2] then
  return 0
end
redis.call('DEL', KEYS[2])
local version = 0
for i = 4, #ARGV, 5 do
  version = version + 1
  redis.call('XADD', KEYS[2], string.format('%d-0', version),
             't', ARGV[i], 's', ARGV[i + 1], 'at', ARGV[i + 2], 'd', ARGV[i + 3], 'h', ARGV[i + 4])
end
redis.call('RENAME', KEYS[2], KEYS[1])
redis.call('RPUSH', KEYS[3], ARGV[3])
return 1
""")
