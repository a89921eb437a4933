"""The ratings read model on Redis: rated results in, folded in one order by one folder at a time.

Layout (key names from :mod:`shared.keys.rating_keys`; compact members from
:mod:`shared.readmodels.rating_entries`):

- a player's history: one entry per rated match (the opponent, who won, the rating after it),
  scored by the match's end; ties at one instant are ordered by member, which starts with the
  match id, so ZRANGE is the fold's order. The last entry is the player's rating: nothing else
  is kept per player, and nothing at all per match beyond the two entries;
- pending: the results recorded but not yet folded (usually none or one);
- the lock: the one folder's token (it expires, so a crashed folder only delays);
- the leaderboard: the non-provisional players scored by rating.

Folding from a place. A result changes its two players from its end on, then everyone they
played after that, and so on: the folder finds exactly that set in the histories (a player is
affected from their first affected match on; each of their later entries names an opponent,
affected from then on), reads each affected player's standing just before, refolds every
affected result (:func:`shared.ratings.rating_fold.refold`) and rewrites those entries. A
result in order affects only its own two entries; one that arrives late (a worker caught up
out of order) refolds what followed it, and no ordered list of every result is kept for that.

Fencing: the lock expires (``LOCK_MS``), so a folder stalled past it could write over the fold of
the one that took the lock after it. Each folder takes a fence number with the lock (the lock
holds it); just before writing it checks it still holds the lock, and every write is a script
in its key's slot that refuses a fence lower than the highest that wrote there (kept beside the
history, and beside the board), and replaces the entries from the fold's place on whatever it
read. So a folder that lost its lock writes nothing, or, if it lost it between the check and the
writes, nothing the newer folder wrote (which folds every result the stale one did, and more).

Race-freedom: recording adds the result to pending; a folder that takes the lock folds every
pending result and lets go in one script that removes what it folded and keeps the lock if
anything new waits (it then folds again). A recorder that finds the lock taken leaves its
result in pending, where the holder must see it before letting go: no result is ever left
unfolded. A generation being built records without folding (``fold=False``) and is folded
once, from nothing, at the rebuild's end (``settle``).
"""

from __future__ import annotations

from typing import Any

from shared import keys
from shared.eventstore.lua import Script
from shared.ratings.rating_fold import NEW_PLAYER, Change, PlayerRating, RatedResult, refold
from shared.readmodels.rating_entries import (
    entry_from,
    entry_match,
    entry_member,
    result_from,
    result_member,
    result_of_entry,
)


class LostLockError(Exception):
    """The fold's lock expired and another folder took it: this fold must write nothing."""


LOCK_MS = 30_000  # a folder that crashed holds the fold this long at most
_STANDING_LOOKBACK = 64  # entries read back from a place to find the one before it

# KEYS[1] pending. ARGV[1] the match's end (ms), ARGV[2] the result. Returns 1 if it was not pending.
_RECORD = Script("""
return redis.call('ZADD', KEYS[1], 'NX', ARGV[1], ARGV[2])
""")

# KEYS[1] pending, KEYS[2] lock. ARGV[1] token, ARGV[2] lock ms, then the members folded.
# Returns 1 if the lock was let go (nothing waits), 0 if kept (fold again).
_RELEASE = Script("""
for i = 3, #ARGV do redis.call('ZREM', KEYS[1], ARGV[i]) end
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 1 end
if redis.call('ZCARD', KEYS[1]) > 0 then
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
  return 0
end
redis.call('DEL', KEYS[2])
return 1
""")


# KEYS[1] the lock. ARGV[1] token, ARGV[2] lock ms. Returns 1 if the token holds the lock (kept LOCK_MS on).
_HOLDS = Script("""
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
""")

# KEYS[1] a player's history, KEYS[2] its fence. ARGV[1] the fold's fence, ARGV[2] the place's end (ms),
# ARGV[3] the place's match id, then score, member pairs: the entries from the place on.
# Returns 1 if written, 0 if a newer fold wrote here already.
_REPLACE = Script("""
if tonumber(ARGV[1]) < tonumber(redis.call('GET', KEYS[2]) or '0') then return 0 end
redis.call('SET', KEYS[2], ARGV[1])
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[2], ARGV[2])) do
  if string.match(member, '^[^ ]+') >= ARGV[3] then redis.call('ZREM', KEYS[1], member) end
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '(' .. ARGV[2], '+inf')
for i = 4, #ARGV, 2 do redis.call('ZADD', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 1
""")

# KEYS[1] the leaderboard, KEYS[2] its fence. ARGV[1] the fold's fence, then player, rating pairs
# (an empty rating: off the board). Returns 1 if written, 0 if a newer fold wrote here already.
_PLACE = Script("""
if tonumber(ARGV[1]) < tonumber(redis.call('GET', KEYS[2]) or '0') then return 0 end
redis.call('SET', KEYS[2], ARGV[1])
for i = 2, #ARGV, 2 do
  if ARGV[i + 1] == '' then redis.call('ZREM', KEYS[1], ARGV[i])
  else redis.call('ZADD', KEYS[1], ARGV[i + 1], ARGV[i]) end
end
return 1
""")


def _key(entry: tuple[bytes, float]) -> tuple[int, str]:
    return (int(entry[1]), entry_match(entry[0]))


class RedisRatings:
    """One generation of the ratings read model, on a Redis client (a server or a cluster)."""

    def __init__(self, client: Any, generation: int = 0) -> None:
        self._client = client
        self._generation = keys.validate_generation(generation)
        self._pending_key = keys.ratings_pending(generation)
        self._lock_key = keys.ratings_lock(generation)

    def _history(self, player_id: str) -> str:
        return keys.player_ratings(player_id, self._generation)

    def record(self, result: RatedResult, fold: bool = True) -> bool:
        for player_id in (result.match_id, result.player_a, result.player_b):
            keys.validate_match_id(player_id)
        if self._folded(result):
            return False
        added = bool(int(_RECORD(self._client, [self._pending_key], [result.ended_at, result_member(result)])))
        if fold:
            self.settle()
        return added

    def _folded(self, result: RatedResult) -> bool:
        """Whether the result's entry is in its first player's history already."""
        at = self._client.zrangebyscore(self._history(result.player_a), result.ended_at, result.ended_at)
        return any(entry_match(member) == result.match_id for member in at)

    def settle(self) -> int:
        token, folded = str(self._client.incr(keys.ratings_fences(self._generation))), 0
        if not self._client.set(self._lock_key, token, nx=True, px=LOCK_MS):
            return 0  # the holder folds ours before it lets go
        while True:
            members = self._client.zrange(self._pending_key, 0, -1, withscores=True)
            try:
                folded += self._fold(members, token)
            except LostLockError:
                return folded  # the lock's new holder folds what was pending, ours included
            released = _RELEASE(self._client, [self._pending_key, self._lock_key],
                                [token, LOCK_MS, *(member for member, _ in members)])
            if int(released):
                return folded

    def _fold(self, pending: list[tuple[bytes, float]], token: str) -> int:
        """Fold the pending results and every result they affect, under the fence ``token``; how many
        results were (re)folded. LostLockError (nothing written) if the lock was taken over."""
        if not pending:
            return 0
        gathered = {result.match_id: result for result in (result_from(m, s) for m, s in pending)}
        since: dict[str, tuple[int, str]] = {}
        for result in gathered.values():
            for player in (result.player_a, result.player_b):
                since[player] = min(since.get(player, result.key), result.key)
        self._affected(gathered, since)
        standing = self._standings(since)
        changes: dict[str, list[tuple[Change, bool]]] = {player: [] for player in since}
        for change in refold(gathered.values(), standing):
            seated_a = gathered[change.match_id].player_a == change.player_id
            changes[change.player_id].append((change, seated_a))
        if not int(_HOLDS(self._client, [self._lock_key], [token, LOCK_MS])):
            raise LostLockError(token)
        self._rewrite(changes, since, token)
        return len(gathered)

    def _affected(self, gathered: dict[str, RatedResult], since: dict[str, tuple[int, str]]) -> None:
        """Widen ``gathered`` and ``since`` to every result and player the fold changes (each
        affected player's entries from their place on are replaced when it writes)."""
        frontier = set(since)
        while frontier:
            players = sorted(frontier)
            pipe = self._client.pipeline(transaction=False)
            for player in players:
                pipe.zrangebyscore(self._history(player), since[player][0], "+inf", withscores=True)
            frontier = set()
            for player, entries in zip(players, pipe.execute()):
                later = [entry for entry in entries if _key(entry) >= since[player]]
                for entry in later:
                    result = gathered.setdefault(entry_match(entry[0]), result_of_entry(player, *entry))
                    for other in (result.player_a, result.player_b):
                        if result.key < since.get(other, (2**62, "")):
                            since[other] = result.key
                            frontier.add(other)

    def _standings(self, since: dict[str, tuple[int, str]]) -> dict[str, PlayerRating]:
        """Each player's rating just before their place in the fold."""
        players = sorted(since)
        pipe = self._client.pipeline(transaction=False)
        for player in players:
            pipe.zrevrangebyscore(self._history(player), since[player][0], "-inf", start=0, num=_STANDING_LOOKBACK,
                                  withscores=True)
        standing = {}
        for player, earlier in zip(players, pipe.execute()):
            before = [entry for entry in earlier if _key(entry) < since[player]]
            if not before and len(earlier) == _STANDING_LOOKBACK:  # that many at one instant: read them all
                every = self._client.zrevrangebyscore(self._history(player), since[player][0], "-inf", withscores=True)
                before = [entry for entry in every if _key(entry) < since[player]]
            standing[player] = entry_from(player, *before[0], NEW_PLAYER).after if before else NEW_PLAYER
        return standing

    def _rewrite(self, changes: dict[str, list[tuple[Change, bool]]], since: dict[str, tuple[int, str]],
                 fence: str) -> None:
        """Replace each player's entries from the fold's place on, and their leaderboard place: one
        fenced script per player's slot, then one for the board."""
        places: list[Any] = []
        for player, made in changes.items():
            at, match_id = since[player]
            entries = [part for change, seated_a in made for part in (change.at, entry_member(change, seated_a))]
            _REPLACE(self._client, [self._history(player), keys.player_ratings_fence(player, self._generation)],
                     [fence, at, match_id, *entries])
            if made:
                final = made[-1][0].after
                places += [player, "" if final.provisional else repr(final.rating.value)]
        if places:
            _PLACE(self._client, [keys.leaderboard(self._generation), keys.leaderboard_fence(self._generation)],
                   [fence, *places])

    def rating(self, player_id: str) -> PlayerRating | None:
        last = self._client.zrange(self._history(player_id), -1, -1, withscores=True)
        return entry_from(player_id, *last[0], NEW_PLAYER).after if last else None

    def history(self, player_id: str, after: int = 0, limit: int = 50) -> list[Change]:
        if limit <= 0:
            return []
        start = max(after - 1, 0)  # the entry before the window says where its first one started
        entries = self._client.zrange(self._history(player_id), start, after + limit - 1, withscores=True)
        before, out = NEW_PLAYER, []
        for index, entry in enumerate(entries):
            change = entry_from(player_id, *entry, before)
            if start + index >= after:
                out.append(change)
            before = change.after
        return out

    def leaderboard(self, after: int = 0, limit: int = 50) -> list[tuple[str, PlayerRating]]:
        """The page of the board, then every one of its players' last entries in one pipeline: two
        round trips a page, however long (a player's history lives in their own slot)."""
        if limit <= 0:
            return []
        ids = [p.decode() if isinstance(p, bytes) else p
               for p in self._client.zrevrange(keys.leaderboard(self._generation), after, after + limit - 1)]
        pipe = self._client.pipeline(transaction=False)
        for player in ids:
            pipe.zrange(self._history(player), -1, -1, withscores=True)
        return [(player, entry_from(player, *last[0], NEW_PLAYER).after)
                for player, last in zip(ids, pipe.execute() if ids else [], strict=True) if last]

    def results(self) -> list[RatedResult]:
        found: dict[str, RatedResult] = {}
        for key in self._client.scan_iter(match=keys.player_ratings_pattern(self._generation), count=500):
            player = keys.player_id_from_key(key)
            for entry in self._client.zrange(key, 0, -1, withscores=True):
                found.setdefault(entry_match(entry[0]), result_of_entry(player, *entry))
        return sorted(found.values(), key=lambda r: r.key)

    def waiting(self) -> int:
        return int(self._client.zcard(self._pending_key))
