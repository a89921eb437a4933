"""The ratings read model on Redis: rated results in, folded in one order by one folder at a time.

Layout (key names from :mod:`shared.keys.ratings`; compact members from
:mod:`shared.readmodels.rating_entries`):

- the results: every rated result, scored by the match's end (ties: by member, which starts
  with the match id, so ZRANGE is the fold's order);
- pending: the results recorded but not yet folded;
- the lock: the one folder's token (expires, so a crashed folder only delays);
- a player's history: one entry per rated match, with the rating after it; the last entry is
  the player's rating, so nothing else per player is kept;
- the leaderboard: the non-provisional players scored by rating.

Race-freedom: recording adds a result to the results and to pending in one script (they share
a slot). A folder that takes the lock folds from the earliest pending result on: it reads
every player's standing before that place from their history, refolds every later result
(:func:`shared.ratings.rating_fold.refold`), rewrites those entries, and lets go in one script
that removes what it folded from pending and keeps the lock if anything new waits (it then
folds again). A recorder that finds the lock taken leaves its result in pending, where the
holder must see it before letting go: no result is ever left unfolded, and a result that
arrives late (a worker caught up out of order) is folded from its place on.
"""

from __future__ import annotations

from typing import Any

from shared import keys
from shared.eventstore.lua import Script
from shared.ids import new_id
from shared.ratings.rating_fold import NEW_PLAYER, Change, PlayerRating, RatedResult, refold
from shared.readmodels.rating_entries import entry_from, entry_match, entry_member, result_from, result_member

LOCK_MS = 30_000  # a folder that crashed holds the fold this long at most
_STANDING_LOOKBACK = 64  # entries read back from a place to find the one before it

# KEYS[1] results, KEYS[2] pending. ARGV[1] the match's end (ms), ARGV[2] the result.
# Returns 1 if the result is new. A match's result is the same member however often it is told.
_RECORD = Script("""
if redis.call('ZADD', KEYS[1], 'NX', ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('ZADD', KEYS[2], ARGV[1], ARGV[2])
return 1
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


def _key(entry: tuple[bytes, float]) -> tuple[int, str]:
    return (int(entry[1]), entry_match(entry[0]))


class RedisRatings:
    """One generation of the ratings read model, on a Redis client (a server or a cluster)."""

    def __init__(self, client: Any, generation: int = 0) -> None:
        self._client = client
        self._generation = keys.validate_generation(generation)
        self._results_key = keys.rated_results(generation)
        self._pending_key = keys.ratings_pending(generation)
        self._lock_key = keys.ratings_lock(generation)

    def record(self, result: RatedResult) -> bool:
        for player_id in (result.player_a, result.player_b):
            keys.validate_match_id(player_id)
        keys.validate_match_id(result.match_id)
        args = [result.ended_at, result_member(result)]
        added = bool(int(_RECORD(self._client, [self._results_key, self._pending_key], args)))
        self.settle()
        return added

    def settle(self) -> int:
        token, folded = new_id(), 0
        if not self._client.set(self._lock_key, token, nx=True, px=LOCK_MS):
            return 0  # the holder folds ours before it lets go
        while True:
            members = self._client.zrange(self._pending_key, 0, -1, withscores=True)
            folded += self._fold_from(members)
            released = _RELEASE(self._client, [self._pending_key, self._lock_key],
                                [token, LOCK_MS, *(member for member, _ in members)])
            if int(released):
                return folded

    def _fold_from(self, pending: list[tuple[bytes, float]]) -> int:
        """Refold every result from the earliest of ``pending`` on; how many."""
        if not pending:
            return 0
        first = _key(pending[0])
        later = [result_from(member, score)
                 for member, score in self._client.zrangebyscore(self._results_key, first[0], "+inf", withscores=True)]
        later = [result for result in later if result.key >= first]
        players = sorted({p for result in later for p in (result.player_a, result.player_b)})
        standing, stale = self._standings(players, first)
        changes: dict[str, list[Change]] = {player: [] for player in players}
        for change in refold(later, standing):
            changes[change.player_id].append(change)
        self._rewrite(changes, stale)
        return len(later)

    def _standings(
        self, players: list[str], first: tuple[int, str],
    ) -> tuple[dict[str, PlayerRating], dict[str, list[bytes]]]:
        """Each player's rating just before ``first``, and their entries from ``first`` on (to be replaced)."""
        pipe = self._client.pipeline(transaction=False)
        for player in players:
            history = keys.player_ratings(player, self._generation)
            pipe.zrevrangebyscore(history, first[0], "-inf", start=0, num=_STANDING_LOOKBACK, withscores=True)
            pipe.zrangebyscore(history, first[0], "+inf", withscores=True)
        replies = pipe.execute()
        standing, stale = {}, {}
        for index, player in enumerate(players):
            earlier, later = replies[2 * index], replies[2 * index + 1]
            before = [entry for entry in earlier if _key(entry) < first]
            if not before and len(earlier) == _STANDING_LOOKBACK:  # that many at one instant: read them all
                every = self._client.zrevrangebyscore(keys.player_ratings(player, self._generation),
                                                      first[0], "-inf", withscores=True)
                before = [entry for entry in every if _key(entry) < first]
            standing[player] = entry_from(player, *before[0], NEW_PLAYER).after if before else NEW_PLAYER
            stale[player] = [member for member, score in later if _key((member, score)) >= first]
        return standing, stale

    def _rewrite(self, changes: dict[str, list[Change]], stale: dict[str, list[bytes]]) -> None:
        """Replace each player's entries from the fold's place on, and their leaderboard place."""
        board = keys.leaderboard(self._generation)
        pipe = self._client.pipeline(transaction=False)
        for player, made in changes.items():
            history = keys.player_ratings(player, self._generation)
            if stale[player]:
                pipe.zrem(history, *stale[player])
            if made:
                pipe.zadd(history, {entry_member(change): change.at for change in made})
                final = made[-1].after
                if final.provisional:
                    pipe.zrem(board, player)
                else:
                    pipe.zadd(board, {player: final.rating.value})
        pipe.execute()

    def rating(self, player_id: str) -> PlayerRating | None:
        last = self._client.zrange(keys.player_ratings(player_id, self._generation), -1, -1, withscores=True)
        return entry_from(player_id, *last[0], NEW_PLAYER).after if last else None

    def history(self, player_id: str, after: int = 0, limit: int = 50) -> list[Change]:
        if limit <= 0:
            return []
        start = max(after - 1, 0)  # the entry before the window says where its first one started
        entries = self._client.zrange(keys.player_ratings(player_id, self._generation), start, after + limit - 1,
                                      withscores=True)
        before, out = NEW_PLAYER, []
        for index, entry in enumerate(entries):
            change = entry_from(player_id, *entry, before)
            if start + index >= after:
                out.append(change)
            before = change.after
        return out

    def leaderboard(self, after: int = 0, limit: int = 50) -> list[tuple[str, PlayerRating]]:
        if limit <= 0:
            return []
        ids = [p.decode() if isinstance(p, bytes) else p
               for p in self._client.zrevrange(keys.leaderboard(self._generation), after, after + limit - 1)]
        ratings = [(player, self.rating(player)) for player in ids]
        return [(player, rating) for player, rating in ratings if rating is not None]

    def results(self) -> list[RatedResult]:
        stored = self._client.zrange(self._results_key, 0, -1, withscores=True)
        return [result_from(member, score) for member, score in stored]

    def waiting(self) -> int:
        return int(self._client.zcard(self._pending_key))
