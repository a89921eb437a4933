"""The ratings read model on Redis: rated results in, folded in one order by one folder at a time.

Layout (key names from :mod:`shared.keys.rating_keys`; compact members from
:mod:`shared.readmodels.rating_entries`; the scripts in :mod:`shared.readmodels.rating_scripts`):

- a player's history: one entry per rated match (the opponent, who won, the rating after it),
  scored by the match's end; ties at one instant are ordered by member, which starts with the
  match id, so ZRANGE is the fold's order. The last entry is the player's rating: nothing else
  is kept per player, and nothing at all per match beyond the two entries;
- a player's cold part (:mod:`shared.readmodels.rating_cold`): once a rated match is archived,
  the entries of its players up to it leave the sorted set for one string per player of
  fixed-width records, headed by the exact standing after them. It is always the history's
  oldest part, so a fold that starts after it starts from that standing;
- the chills: archived matches whose entries wait to be moved, moved by the folder;
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

Cold parts are written by the folder only (a chill asked for waits in the chills, as a result
waits in pending), fenced like every other write, so a move never races a refold. A result that
ends inside a player's cold part (its worker lagged past the match's archiving) is folded with
everything, from nothing: the cold parts keep their bounds, and their records are written anew.

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
from shared.ratings.rating_fold import NEW_PLAYER, Change, PlayerRating, RatedResult, refold
from shared.readmodels.rating_cold import (
    HEADER_BYTES,
    RECORD_BYTES,
    changes_of,
    cold_header,
    holds_match,
    packed_prefix,
    record_key,
    records,
    result_of_record,
    standing,
)
from shared.readmodels.rating_entries import (
    entry_from,
    entry_match,
    entry_member,
    result_from,
    result_member,
    result_of_entry,
)
from shared.readmodels.rating_scripts import CHILL, HISTORY, HOLDS, PLACE, RECORD, RELEASE, REPLACE, REWRITE


class LostLockError(Exception):
    """The fold's lock expired and another folder took it: this fold must write nothing."""


LOCK_MS = 30_000  # a folder that crashed holds the fold this long at most
_STANDING_LOOKBACK = 64  # entries read back from a place to find the one before it


class _ColdPartMoved(Exception):
    """A player's cold part changed after the fold read it: the fold starts again (it holds the lock)."""


class _InsideTheColdPart(Exception):
    """A result to fold ends before a player's cold part does: only a fold of everything can place it."""


def _key(entry: tuple[bytes, float]) -> tuple[int, str]:
    return (int(entry[1]), entry_match(entry[0]))


class RedisRatings:
    """One generation of the ratings read model, on a Redis client (a server or a cluster)."""

    def __init__(self, client: Any, generation: int = 0) -> None:
        self._client = client
        self._generation = keys.validate_generation(generation)
        self._pending_key = keys.ratings_pending(generation)
        self._chills_key = keys.ratings_chills(generation)
        self._lock_key = keys.ratings_lock(generation)

    def _history(self, player_id: str) -> str:
        return keys.player_ratings(player_id, self._generation)

    def _cold(self, player_id: str) -> str:
        return keys.player_ratings_cold(player_id, self._generation)

    def _fence(self, player_id: str) -> str:
        return keys.player_ratings_fence(player_id, self._generation)

    def record(self, result: RatedResult, fold: bool = True) -> bool:
        for player_id in (result.match_id, result.player_a, result.player_b):
            keys.validate_match_id(player_id)
        if self._folded(result):
            return False
        added = bool(int(RECORD(self._client, [self._pending_key], [result.ended_at, result_member(result)])))
        if fold:
            self.settle()
        return added

    def chill(self, match_id: str, ended_at: int, player_ids: list[str], fold: bool = True) -> None:
        """The match left Redis: its players' entries up to it become their cold parts (by the folder,
        which folds what waits first); ``fold``: now, else at the next settle."""
        for player_id in (match_id, *player_ids):
            keys.validate_match_id(player_id)
        self._client.zadd(self._chills_key, {" ".join([match_id, *player_ids]): ended_at})
        if fold:
            self.settle()

    def _folded(self, result: RatedResult) -> bool:
        """Whether the result's entry is in its first player's history already (hot, or cold)."""
        history, cold = self._history(result.player_a), self._cold(result.player_a)
        pipe = self._client.pipeline(transaction=False)
        pipe.zrangebyscore(history, result.ended_at, result.ended_at)
        pipe.getrange(cold, -RECORD_BYTES, -1)
        at, last = pipe.execute()
        if any(entry_match(member) == result.match_id for member in at):
            return True
        if not last or record_key(last) < result.key:
            return False  # after the cold part: not in it
        return holds_match((self._client.get(cold) or b"")[HEADER_BYTES:], result.match_id)

    def settle(self) -> int:
        token, folded = str(self._client.incr(keys.ratings_fences(self._generation))), 0
        if not self._client.set(self._lock_key, token, nx=True, px=LOCK_MS):
            return 0  # the holder folds ours before it lets go
        while True:
            pipe = self._client.pipeline(transaction=False)
            pipe.zrange(self._pending_key, 0, -1, withscores=True)
            pipe.zrange(self._chills_key, 0, -1, withscores=True)
            members, chills = pipe.execute()
            try:
                folded += self._fold(members, token)
                self._chill_all(chills, token)
            except LostLockError:
                return folded  # the lock's new holder folds what was pending, ours included
            except _ColdPartMoved:
                continue
            released = RELEASE(self._client, [self._pending_key, self._chills_key, self._lock_key],
                               [token, LOCK_MS, len(members), *(member for member, _ in members),
                                *(member for member, _ in chills)])
            if int(released):
                return folded

    def _holds(self, token: str) -> None:
        """LostLockError unless ``token`` still holds the lock (kept on for LOCK_MS)."""
        if not int(HOLDS(self._client, [self._lock_key], [token, LOCK_MS])):
            raise LostLockError(token)

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
        try:
            standing, cold_lengths = self._standings(since)
        except _InsideTheColdPart:
            return self._fold_everything(list(gathered.values()), token)
        changes: dict[str, list[tuple[Change, bool]]] = {player: [] for player in since}
        for change in refold(gathered.values(), standing):
            seated_a = gathered[change.match_id].player_a == change.player_id
            changes[change.player_id].append((change, seated_a))
        self._holds(token)
        self._rewrite(changes, since, cold_lengths, token)
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

    def _standings(self, since: dict[str, tuple[int, str]]) -> tuple[dict[str, PlayerRating], dict[str, int]]:
        """Each player's rating just before their place in the fold (their last entry before it, else
        their cold part's standing) and the length of their cold part as read. _InsideTheColdPart
        if a place is not after a cold part."""
        players = sorted(since)
        pipe = self._client.pipeline(transaction=False)
        for player in players:
            pipe.zrevrangebyscore(self._history(player), since[player][0], "-inf", start=0, num=_STANDING_LOOKBACK,
                                  withscores=True)
            pipe.strlen(self._cold(player))
            self._ask_cold_standing(pipe, player)
        read = pipe.execute()
        standings, lengths = {}, {}
        for index, player in enumerate(players):
            earlier, lengths[player], header, last = read[4 * index:4 * index + 4]
            before = [entry for entry in earlier if _key(entry) < since[player]]
            if not before and len(earlier) == _STANDING_LOOKBACK:  # that many at one instant: read them all
                every = self._client.zrevrangebyscore(self._history(player), since[player][0], "-inf", withscores=True)
                before = [entry for entry in every if _key(entry) < since[player]]
            if before:
                standings[player] = entry_from(player, *before[0], NEW_PLAYER).after
            elif header:
                if record_key(last) >= since[player]:
                    raise _InsideTheColdPart(player)
                standings[player] = standing(header, last)
            else:
                standings[player] = NEW_PLAYER
        return standings, lengths

    def _rewrite(self, changes: dict[str, list[tuple[Change, bool]]], since: dict[str, tuple[int, str]],
                 cold_lengths: dict[str, int], fence: str) -> None:
        """Replace each player's entries from the fold's place on, and their leaderboard place: one
        fenced script per player's slot, then one for the board. _ColdPartMoved if a player's cold
        part is not as the fold read it."""
        for player, made in changes.items():
            at, match_id = since[player]
            entries = [part for change, seated_a in made for part in (change.at, entry_member(change, seated_a))]
            written = REPLACE(self._client, [self._history(player), self._fence(player), self._cold(player)],
                              [fence, cold_lengths[player], at, match_id, *entries])
            if int(written) == -1:
                raise _ColdPartMoved(player)
        self._place(changes, fence)

    def _place(self, changes: dict[str, list[tuple[Change, bool]]], fence: str) -> None:
        """Each changed player's leaderboard place, as their last change left them (one fenced script)."""
        places: list[Any] = []
        for player, made in changes.items():
            if made:
                final = made[-1][0].after
                places += [player, "" if final.provisional else repr(final.rating.value)]
        if places:
            PLACE(self._client, [keys.leaderboard(self._generation), keys.leaderboard_fence(self._generation)],
                  [fence, *places])

    def _fold_everything(self, late: list[RatedResult], token: str) -> int:
        """Fold every result from nothing: a result ended before a player's cold part does (its
        worker lagged past the match's archiving). Each player's cold part keeps its bounds, its
        records and header folded anew."""
        every = {result.match_id: result for result in self.results()}
        every.update((result.match_id, result) for result in late)
        bounds = {player: record_key(last) for player, last in self._cold_lasts(every.values()).items() if last}
        changes: dict[str, list[tuple[Change, bool]]] = {}
        for change in refold(every.values(), {}):
            seated_a = every[change.match_id].player_a == change.player_id
            changes.setdefault(change.player_id, []).append((change, seated_a))
        self._holds(token)
        for player, made in changes.items():
            cold, hot = _split(player, made, bounds.get(player))
            REWRITE(self._client, [self._history(player), self._cold(player), self._fence(player)],
                    [token, cold, *hot])
        self._place(changes, token)
        return len(every)

    def _cold_lasts(self, results: Any) -> dict[str, bytes]:
        """The last cold record of each player of ``results`` (empty: none)."""
        players = sorted({player for result in results for player in (result.player_a, result.player_b)})
        pipe = self._client.pipeline(transaction=False)
        for player in players:
            pipe.getrange(self._cold(player), -RECORD_BYTES, -1)
        return dict(zip(players, pipe.execute() if players else [], strict=True))

    def _chill_all(self, chills: list[tuple[bytes, float]], token: str) -> None:
        """Move each chilled match's players' entries up to it into their cold parts."""
        for member, score in chills:
            match_id, *players = member.decode().split(" ")
            for player in players:
                self._chill(player, (int(score), match_id), token)

    def _chill(self, player: str, upto: tuple[int, str], token: str) -> None:
        """Move the player's entries up to ``upto`` (all of the oldest that pack) into the cold part."""
        entries = self._client.zrangebyscore(self._history(player), "-inf", upto[0], withscores=True)
        packed = packed_prefix(player, entries, upto)
        if not packed:
            return
        moving = entries[:len(packed)]
        self._holds(token)
        CHILL(self._client, [self._history(player), self._cold(player), self._fence(player)],
              [token, cold_header(player, *moving[-1]), b"".join(packed), *(member for member, _ in moving)])

    def rating(self, player_id: str) -> PlayerRating | None:
        return self._lasts([player_id])[player_id]

    def _lasts(self, players: list[str]) -> dict[str, PlayerRating | None]:
        """Each player's last standing: their last hot entry (one pipeline), else, for a player whose
        every entry is cold, their cold part's standing (one more)."""
        pipe = self._client.pipeline(transaction=False)
        for player in players:
            pipe.zrange(self._history(player), -1, -1, withscores=True)
        lasts: dict[str, PlayerRating | None] = {
            player: entry_from(player, *last[0], NEW_PLAYER).after if last else None
            for player, last in zip(players, pipe.execute() if players else [], strict=True)}
        cold = [player for player, last in lasts.items() if last is None]
        if cold:
            pipe = self._client.pipeline(transaction=False)
            for player in cold:
                self._ask_cold_standing(pipe, player)
            read = pipe.execute()
            for index, player in enumerate(cold):
                header, record = read[2 * index:2 * index + 2]
                lasts[player] = standing(header, record) if header else None
        return lasts

    def _ask_cold_standing(self, pipe: Any, player_id: str) -> None:
        """Queue the reads of the cold part's standing: its header and last record (empty: none)."""
        pipe.getrange(self._cold(player_id), 0, HEADER_BYTES - 1)
        pipe.getrange(self._cold(player_id), -RECORD_BYTES, -1)

    def history(self, player_id: str, after: int = 0, limit: int = 50) -> list[Change]:
        if limit <= 0:
            return []
        count, header, last, cold, hot = HISTORY(self._client, [self._history(player_id), self._cold(player_id)],
                                                 [after, limit, HEADER_BYTES, RECORD_BYTES])
        entries = [(member, float(score)) for member, score in zip(hot[::2], hot[1::2], strict=True)]
        standing_after = standing(header, last) if header else NEW_PLAYER
        if after >= count:  # the hot part only, from the entry before the window's first
            start = max(after - 1 - count, 0)
            return _hot_changes(player_id, entries, count + start, after, standing_after if start == 0 else NEW_PLAYER)
        cold_records = records(cold)  # from the first: the wins count from there
        changes = changes_of(player_id, cold_records, standing_after if len(cold_records) == count else None)
        changes += _hot_changes(player_id, entries, count, count, standing_after)
        return changes[after:after + limit]

    def leaderboard(self, after: int = 0, limit: int = 50) -> list[tuple[str, PlayerRating]]:
        """The page of the board, then its players' last standings in one pipeline (one more for those
        whose every entry is cold): two or three round trips a page, however long."""
        if limit <= 0:
            return []
        ids = [p.decode() if isinstance(p, bytes) else p
               for p in self._client.zrevrange(keys.leaderboard(self._generation), after, after + limit - 1)]
        lasts = self._lasts(ids)
        return [(player, last) for player in ids if (last := lasts[player]) is not None]

    def results(self) -> list[RatedResult]:
        found: dict[str, RatedResult] = {}
        for key in self._client.scan_iter(match=keys.player_ratings_pattern(self._generation), count=500):
            player = keys.player_id_from_key(key)
            for entry in self._client.zrange(key, 0, -1, withscores=True):
                found.setdefault(entry_match(entry[0]), result_of_entry(player, *entry))
        cold_keys = list(self._client.scan_iter(match=keys.player_ratings_cold_pattern(self._generation), count=500))
        for start in range(0, len(cold_keys), 500):  # a pipeline of GETs a batch (each key in its player's slot)
            batch, pipe = cold_keys[start:start + 500], self._client.pipeline(transaction=False)
            for key in batch:
                pipe.get(key)
            for key, cold in zip(batch, pipe.execute(), strict=True):
                player = keys.player_id_from_key(key)
                for record in records((cold or b"")[HEADER_BYTES:]):
                    result = result_of_record(player, record)
                    found.setdefault(result.match_id, result)
        return sorted(found.values(), key=lambda r: r.key)

    def waiting(self) -> int:
        return int(self._client.zcard(self._pending_key))


def _hot_changes(player_id: str, entries: list[tuple[bytes, float]], first: int, after: int,
                 before: PlayerRating) -> list[Change]:
    """The changes of hot ``entries`` (the first at position ``first``, after ``before``) from ``after`` on."""
    out = []
    for index, entry in enumerate(entries):
        change = entry_from(player_id, *entry, before)
        if first + index >= after:
            out.append(change)
        before = change.after
    return out


def _split(player: str, made: list[tuple[Change, bool]], bound: tuple[int, str] | None) -> tuple[bytes, list[Any]]:
    """A player's changes folded anew as their cold part (those up to ``bound``, as far as they
    pack) and their hot entries (score, member pairs)."""
    stored = [(entry_member(change, seated_a), change.at) for change, seated_a in made]
    packed = packed_prefix(player, stored, bound)
    hot = [part for member, at in stored[len(packed):] for part in (at, member)]
    return (cold_header(player, *stored[len(packed) - 1]) + b"".join(packed) if packed else b""), hot
