"""Open seeks and the pairing pass over them, race-free across API processes and pairers.

A seek waits in its pool (the same rated-ness and rules: ``pool_of``), scored by its player's
rating. The pairing pass is one Lua script per pool, so any number of API processes and
pairer workers may run it at once: each pair it makes leaves the pool in the same atomic step
(its two seeks gone, the pair written to the pairings until its match exists), so no seek is
ever paired twice, and a player with one open seek (the script refuses a second) is never
paired with themself or into two matches.

The window: a seek accepts an opponent within ``BASE_WINDOW`` rating points, a window that
doubles every ``DOUBLING_MS`` of waiting (100, 200, 400, ... after 0, 5, 10 s), and any
opponent at all after ``ANY_AFTER_MS`` (30 s). The pass looks at the seeks oldest first; each
takes the nearest-rated free seek within its own window (the older seek's window is the wider
one, so the one who waited longer decides). Expired seeks leave the pool in the same pass, which
names them, so their players can be told.

A pairing whose match cannot be made (a player sat down in ``MAX_PLAYING`` matches since seeking)
falls through in one more script (:meth:`SeekPool.reopen`): the pairing is forgotten and the other
player's seek is open again with its id, its age and its place, in the same atomic step, so only
one process ever reopens it and the seek is never paired into two matches.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import orjson

from shared import keys
from shared.eventstore.lua import Script
from shared.ids import new_id
from shared.keys import seeks as seek_keys
from shared.rules import Rules

BASE_WINDOW = 100.0
DOUBLING_MS = 5_000
ANY_AFTER_MS = 30_000

# KEYS[1] seeks, KEYS[2] seekers, KEYS[3] the pool, KEYS[4] pools. ARGV[1] seek id, ARGV[2] player,
# ARGV[3] the seek (JSON), ARGV[4] rating, ARGV[5] pool name, ARGV[6] now (ms).
# Returns '' if opened, else the id of the player's open seek.
_OPEN = Script("""
local open = redis.call('HGET', KEYS[2], ARGV[2])
if open then
  local raw = redis.call('HGET', KEYS[1], open)
  if raw and cjson.decode(raw).expires > tonumber(ARGV[6]) then return open end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
redis.call('SADD', KEYS[4], ARGV[5])
return ''
""")

# KEYS[1] seeks, KEYS[2] seekers, KEYS[3] the pool. ARGV[1] seek id, ARGV[2] player.
# Returns 1 if the player's seek was withdrawn, 0 if it was no open seek of theirs.
_WITHDRAW = Script("""
if redis.call('HGET', KEYS[2], ARGV[2]) ~= ARGV[1] then return 0 end
redis.call('HDEL', KEYS[2], ARGV[2])
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
""")

# KEYS[1] the pool, [2] seeks, [3] seekers, [4] pairings, [5] pools.
# ARGV[1] now (ms), [2] pool name, [3] base window, [4] doubling (ms), [5] any after (ms),
# [6...] fresh match ids (one per pair at most).
# Returns {the pairings made (JSON each), the seeks that expired (JSON each: {seek, player})}.
_PAIR = Script("""
local now, base, doubling, any_after = tonumber(ARGV[1]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local listed = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
local seeks, expired = {}, {}
for i = 1, #listed, 2 do
  local id = listed[i]
  local raw = redis.call('HGET', KEYS[2], id)
  local seek = raw and cjson.decode(raw)
  if seek == nil or seek.expires <= now then
    redis.call('ZREM', KEYS[1], id)
    redis.call('HDEL', KEYS[2], id)
    if seek and redis.call('HGET', KEYS[3], seek.player) == id then redis.call('HDEL', KEYS[3], seek.player) end
    if seek then expired[#expired + 1] = cjson.encode({seek = id, player = seek.player}) end
  else
    seek.id, seek.rating = id, tonumber(listed[i + 1])
    seeks[#seeks + 1] = seek
  end
end
local order = {}
for i = 1, #seeks do order[i] = i end
table.sort(order, function(x, y)
  if seeks[x].since ~= seeks[y].since then return seeks[x].since < seeks[y].since end
  return seeks[x].id < seeks[y].id
end)
local taken, made, fresh = {}, {}, 6
for _, i in ipairs(order) do
  if not taken[i] and fresh <= #ARGV then
    local s = seeks[i]
    local age = now - s.since
    local window = math.huge
    if age < any_after then window = base * 2 ^ (age / doubling) end
    local lo, hi, best = i - 1, i + 1, nil
    while best == nil do
      local dlo, dhi = nil, nil
      if lo >= 1 then dlo = s.rating - seeks[lo].rating end
      if hi <= #seeks then dhi = seeks[hi].rating - s.rating end
      if dlo == nil and dhi == nil then break end
      local j, d
      if dhi == nil or (dlo ~= nil and dlo <= dhi) then j, d, lo = lo, dlo, lo - 1 else j, d, hi = hi, dhi, hi + 1 end
      if d > window then break end
      if not taken[j] and seeks[j].player ~= s.player then best = j end
    end
    if best then
      local o = seeks[best]
      taken[i], taken[best] = true, true
      local pairing = cjson.encode({match_id = ARGV[fresh], made = now, rated = s.rated, rules = s.rules,
        pool = ARGV[2],
        a = {seek = s.id, player = s.player, since = s.since, expires = s.expires, rating = s.rating},
        b = {seek = o.id, player = o.player, since = o.since, expires = o.expires, rating = o.rating}})
      fresh = fresh + 1
      for _, one in ipairs({s, o}) do
        redis.call('ZREM', KEYS[1], one.id)
        redis.call('HDEL', KEYS[2], one.id)
        if redis.call('HGET', KEYS[3], one.player) == one.id then redis.call('HDEL', KEYS[3], one.player) end
      end
      redis.call('HSET', KEYS[4], ARGV[fresh - 1], pairing)
      made[#made + 1] = pairing
    end
  end
end
if redis.call('ZCARD', KEYS[1]) == 0 then redis.call('SREM', KEYS[5], ARGV[2]) end
return {made, expired}
""")

# KEYS[1] seeks, [2] seekers, [3] pairings, [4] pools, [5] the pool. ARGV[1] the pairing's match id,
# [2] now (ms), [3] pool name, then for each seek to reopen: seek id, player, the seek (JSON), rating.
# Returns {0} if the pairing was gone (another process let it fall through, or made its match),
# else {1, then per seek: 'open', 'expired', or 'superseded' (its player has opened another)}.
_REOPEN = Script("""
local now = tonumber(ARGV[2])
if redis.call('HDEL', KEYS[3], ARGV[1]) == 0 then return {0} end
local outcomes = {1}
for i = 4, #ARGV, 4 do
  local id, player, body, rating = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local open = redis.call('HGET', KEYS[2], player)
  local other = open and redis.call('HGET', KEYS[1], open)
  local outcome = 'open'
  if cjson.decode(body).expires <= now then
    outcome = 'expired'
  elseif other and cjson.decode(other).expires > now then
    outcome = 'superseded'
  else
    redis.call('HSET', KEYS[1], id, body)
    redis.call('HSET', KEYS[2], player, id)
    redis.call('ZADD', KEYS[5], rating, id)
    redis.call('SADD', KEYS[4], ARGV[3])
  end
  outcomes[#outcomes + 1] = outcome
end
return outcomes
""")


# KEYS[1] the match's rematch offer. ARGV[1] the asking player, ARGV[2] the offer's life (ms),
# ARGV[3] a fresh match id. Returns {'offered'} (the offer stands, the asker's), {'make', id} (the
# other player accepted now: make match id) or {'made', id} (it was made already).
_REMATCH = Script("""
local held = redis.call('GET', KEYS[1])
if not held or held == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return {'offered'}
end
if string.sub(held, 1, 5) == 'made:' then return {'made', string.sub(held, 6)} end
redis.call('SET', KEYS[1], 'made:' .. ARGV[3], 'PX', ARGV[2])
return {'make', ARGV[3]}
""")


def rematch(client: Any, match_id: str, player_id: str, seconds: int) -> tuple[str, str | None]:
    """Ask for a rematch of ``match_id``: ("offered", None), ("make", new id) once for the
    second player, or ("made", new id) after that; one script, so only one call ever makes it."""
    reply = _REMATCH(client, [seek_keys.rematch_offer(match_id)], [player_id, seconds * 1000, new_id()])
    outcome, *made = [_text(part) for part in reply]
    return outcome, (made[0] if made else None)


@dataclass(frozen=True)
class Seek:
    """An open seek, as ``POST /seeks`` answers it."""

    id: str
    player_id: str
    rated: bool
    rules: dict[str, Any]
    since: int  # epoch ms
    expires: int  # epoch ms


@dataclass(frozen=True)
class Pairing:
    """Two seeks a pass paired, and the id their match gets."""

    match_id: str
    made: int
    rated: bool
    rules: dict[str, Any]
    a: dict[str, Any]  # {"seek", "player", "since", "expires", "rating"}: seat A, the seek that waited longer
    b: dict[str, Any]
    pool: str = ""  # the pool both seeks came from ("" in a pairing recorded before it was kept)


class Expired(NamedTuple):
    """A seek a pass found expired and took out of its pool."""

    seek_id: str
    player_id: str


@dataclass(frozen=True)
class Pass:
    """What one pairing pass did: the pairs it made and the seeks it found expired."""

    made: list[Pairing] = field(default_factory=list)
    expired: list[Expired] = field(default_factory=list)


def pool_of(rated: bool, rules: Rules) -> str:
    """The pool of seeks on these terms: only seeks in one pool pair with each other."""
    terms = orjson.dumps({"rated": rated, "rules": rules.to_dict()}, option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(terms).hexdigest()[:16]


class SeekPool:
    """The open seeks and the pairings on a Redis client (a server or a cluster)."""

    def __init__(self, client: Any, clock: Callable[[], int]) -> None:
        self._client, self._clock = client, clock

    @property
    def client(self) -> Any:
        """The Redis client the seeks live on."""
        return self._client

    def open(self, player_id: str, rated: bool, rules: Rules, rating: float, seconds: int) -> Seek | str:
        """Open a seek for the player; the id of their open seek instead if they have one."""
        now = self._clock()
        seek = Seek(new_id(), player_id, rated, rules.to_dict(), now, now + seconds * 1000)
        pool = pool_of(rated, rules)
        body = orjson.dumps({"player": player_id, "rated": rated, "rules": seek.rules, "since": now,
                             "expires": seek.expires, "pool": pool})
        script_keys = [seek_keys.SEEKS, seek_keys.SEEKERS, seek_keys.seek_pool(pool), seek_keys.SEEK_POOLS]
        other = _text(_OPEN(self._client, script_keys, [seek.id, player_id, body, rating, pool, now]))
        return other or seek

    def withdraw(self, player_id: str, seek_id: str) -> bool:
        """Withdraw the player's open seek; False if it is no open seek of theirs."""
        raw = self._client.hget(seek_keys.SEEKS, keys.validate_match_id(seek_id))
        if raw is None:
            return False
        pool = orjson.loads(raw)["pool"]
        script_keys = [seek_keys.SEEKS, seek_keys.SEEKERS, seek_keys.seek_pool(pool)]
        return bool(int(_WITHDRAW(self._client, script_keys, [seek_id, player_id])))

    def open_count(self) -> int:
        """How many seeks are open (expired ones included until a pass removes them)."""
        return int(self._client.hlen(seek_keys.SEEKS))

    def pair(self) -> Pass:
        """One pairing pass over every pool: the pairs made (each exactly once, whoever runs the pass)
        and the seeks found expired (each named by the one pass that took it out)."""
        done = Pass()
        for raw_pool in self._client.smembers(seek_keys.SEEK_POOLS):
            pool = _text(raw_pool)
            waiting = int(self._client.zcard(seek_keys.seek_pool(pool)))
            fresh = [new_id() for _ in range(min(waiting // 2, 500))]
            script_keys = [seek_keys.seek_pool(pool), seek_keys.SEEKS, seek_keys.SEEKERS, seek_keys.PAIRINGS,
                           seek_keys.SEEK_POOLS]
            args = [self._clock(), pool, BASE_WINDOW, DOUBLING_MS, ANY_AFTER_MS, *fresh]
            made, expired = _PAIR(self._client, script_keys, args)
            done.made.extend(_pairing(raw) for raw in made)
            done.expired.extend(Expired(one["seek"], one["player"]) for one in map(orjson.loads, expired))
        return done

    def reopen(self, pairing: Pairing, sides: list[dict[str, Any]]) -> dict[str, str] | None:
        """Let a pairing whose match will not be made fall through: forget it and open these of its
        seeks again as they were (id, age, rating), atomically. Each seek's outcome by id: "open",
        "expired" or "superseded" (its player opened another); None if the pairing was gone already
        (another process let it fall through first): then nothing was reopened here."""
        pool = pairing.pool or pool_of(pairing.rated, Rules.from_mapping(pairing.rules))
        args: list[Any] = [pairing.match_id, self._clock(), pool]
        for side in sides:
            body = orjson.dumps({"player": side["player"], "rated": pairing.rated, "rules": pairing.rules,
                                 "since": side["since"], "expires": side["expires"], "pool": pool})
            args += [side["seek"], side["player"], body, side["rating"]]
        script_keys = [seek_keys.SEEKS, seek_keys.SEEKERS, seek_keys.PAIRINGS, seek_keys.SEEK_POOLS,
                       seek_keys.seek_pool(pool)]
        here, *outcomes = _REOPEN(self._client, script_keys, args)
        if not int(here):
            return None
        return {side["seek"]: _text(outcome) for side, outcome in zip(sides, outcomes, strict=True)}

    def unfinished(self, older_than_ms: int) -> list[Pairing]:
        """Pairings whose match was not made (their maker died) for ``older_than_ms``."""
        cutoff = self._clock() - older_than_ms
        pairings = [_pairing(raw) for raw in self._client.hvals(seek_keys.PAIRINGS)]
        return [pairing for pairing in pairings if pairing.made <= cutoff]

    def done(self, pairing: Pairing) -> None:
        """The pairing's match exists and both players were told: forget it."""
        self._client.hdel(seek_keys.PAIRINGS, pairing.match_id)


def _pairing(raw: bytes | str) -> Pairing:
    data = orjson.loads(raw)
    rules = data["rules"] if isinstance(data["rules"], dict) else {}  # cjson writes an empty table as []
    return Pairing(data["match_id"], int(data["made"]), bool(data["rated"]), rules, data["a"], data["b"],
                   data.get("pool", ""))


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
