"""Abuse limits, counted in Redis so that every API process enforces the same ones.

A limit lets one subject (a client address, a player) hold at most ``count`` *units* at once.
A unit is held from when it is taken until it is given back, or until ``hold_ms`` later:

- a *rate* limit's units are never given back: "10 registrations an hour" is 10 units held an
  hour each. That is a sliding log: exact (at most 10 in *any* hour, where fixed windows let
  20 through across a window's edge), and it costs at most ``count`` entries per subject;
- a *concurrency* limit's units are given back by their holder (a stream that closes, a
  match someone joined), and ``hold_ms`` is a lease: a stream renews its own while it sends,
  so the units of a process that died lapse by themselves instead of leaking.

Why one Lua script rather than flask-limiter (limits on Redis): that library counts rate
windows but has no unit that is given back, so open streams and waiting matches would need
a second mechanism anyway; it builds its own Redis keys, where ``shared/keys/`` builds
every key; and it counts a request before the view runs, where a registration or a match
that the use case refuses should cost nothing. One sorted set per limit and subject
(member: the unit, score: when it lapses) serves both kinds, in one round trip, with one
key per script, so it runs unchanged on a Redis Cluster. Times come from the caller's clock
(epoch ms), like the event store's, so tests may move them.
"""
from __future__ import annotations

import math
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from shared import keys
from shared.eventstore.lua import Script
from shared.eventstore.port import system_clock

# KEYS[1] the subject's units (a sorted set: unit -> when it lapses, epoch ms).
# ARGV[1] now, ARGV[2] count, ARGV[3] the unit, ARGV[4] when it lapses.
# Returns {1, held, first} once taken, {0, held, frees} when refused: how many are held
# (with this one), when the oldest unit lapses, or when enough lapse for one more.
TAKE = Script("""
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local held = redis.call('ZCARD', KEYS[1])
local count = tonumber(ARGV[2])
if held >= count then
  return {0, held, redis.call('ZRANGE', KEYS[1], held - count, held - count, 'WITHSCORES')[2]}
end
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[3])
local last = tonumber(redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2])
redis.call('PEXPIRE', KEYS[1], math.max(1, last - tonumber(ARGV[1])))
return {1, held + 1, redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]}
""")

# KEYS[1] as TAKE; ARGV[1] now, ARGV[2] the unit, ARGV[3] when it lapses now. Held again
# even if it had lapsed meanwhile: its holder is alive, so it counts.
RENEW = Script("""
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) - tonumber(ARGV[1]) then
  redis.call('PEXPIRE', KEYS[1], math.max(1, tonumber(ARGV[3]) - tonumber(ARGV[1])))
end
return 1
""")


@dataclass(frozen=True)
class Limit:
    name: str  # what a refusal's ``limit`` field says, and part of the keys
    count: int  # units one subject may hold at once; 0 or less: no limit
    hold_ms: int  # how long a unit is held unless given back (a lease, if its holder renews it)


@dataclass(frozen=True)
class Verdict:
    """What a take answered: allowed or not, and what the RateLimit headers say."""

    limit: Limit
    subject: str
    allowed: bool
    remaining: int  # units still free (0 when refused)
    reset_ms: int  # until a unit lapses: the oldest one (allowed), the one that frees a place (refused)
    unit: str = ""  # the unit taken, to give back or renew

    @property
    def reset_seconds(self) -> int:
        """``reset_ms`` in whole seconds, at least 1: what Retry-After and RateLimit-Reset say."""
        return max(1, math.ceil(self.reset_ms / 1000))


class LimitedError(Exception):
    """A subject holds all the units a limit allows: the request is refused and records nothing."""

    def __init__(self, verdict: Verdict) -> None:
        super().__init__(f"{verdict.limit.name} limit of {verdict.limit.count} reached by {verdict.subject}")
        self.verdict = verdict


class Counters:
    """The units every subject holds, in Redis (a ``redis.Redis`` or ``RedisCluster``)."""

    def __init__(self, client: Any, clock: Callable[[], int] = system_clock) -> None:
        self._client, self._clock = client, clock

    def take(self, limit: Limit, subject: str, unit: str | None = None) -> Verdict:
        """One unit of ``limit`` for ``subject`` (``unit`` names it; a fresh name if None)."""
        unit = unit or uuid.uuid4().hex
        if limit.count <= 0:
            return Verdict(limit, subject, True, 0, 0, unit)
        now = self._clock()
        allowed, held, when = TAKE(self._client, [keys.limit(limit.name, subject)],
                                   [now, limit.count, unit, now + limit.hold_ms])
        remaining = max(0, limit.count - int(held)) if allowed else 0
        # Within hold_ms: a concurrent take that read the clock after this one may have run first.
        reset_ms = min(limit.hold_ms, max(0, int(float(when)) - now))
        return Verdict(limit, subject, bool(allowed), remaining, reset_ms, unit)

    def renew(self, verdict: Verdict) -> None:
        """Hold ``verdict``'s unit another ``hold_ms`` from now (a lease whose holder is alive)."""
        if verdict.limit.count > 0:
            now = self._clock()
            RENEW(self._client, [keys.limit(verdict.limit.name, verdict.subject)],
                  [now, verdict.unit, now + verdict.limit.hold_ms])

    def held(self, limit: Limit, subject: str) -> list[str]:
        """The units ``subject`` holds now (lapsed ones excluded), oldest first."""
        raw = self._client.zrangebyscore(keys.limit(limit.name, subject), f"({self._clock()}", "+inf")
        return [unit.decode() if isinstance(unit, bytes) else unit for unit in raw]

    def give_back(self, limit: Limit, subject: str, unit: str) -> None:
        """``unit`` no longer counts (giving back one not held, or twice, changes nothing)."""
        if limit.count > 0:
            self._client.zrem(keys.limit(limit.name, subject), unit)
