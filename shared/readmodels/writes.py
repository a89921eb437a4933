"""One generation of the read models: match views, the lobby and the scoreboard.

Layout (key names from :mod:`shared.keys`; ``:g<N>`` is appended to every
key of generation N >= 1, generation 0 keeps the plain names):

- ``truc:{m:<id>}:views`` - one hash per match, in the match's own cluster slot: ``version``
  (the last event folded in), ``A``, ``B``, ``spectator`` (the three views) and ``summary``
  (the lobby line), each JSON bytes. The API returns the bytes as they are.
- ``truc:lobby:<status>`` - sorted sets of match ids scored by creation time (epoch ms).
  They live outside the match's slot, so they cannot change in the views' script: the
  projector places a match before writing its views and settles it after, and a read
  moves any member whose summary has another status (so the lobby heals itself).
- The scoreboard: see :mod:`shared.readmodels.scoreboard`.

The views' script refuses to move a match backwards (a slow worker's older fold is
dropped) and, when asked to, clears the match's "unprojected" mark in the same atomic
step. Only a write to the generation reads use may clear it: a generation being built
beside it does not serve anyone yet (see :mod:`shared.readmodels.served`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

import orjson

from shared import keys
from shared.connect import is_cluster_client
from shared.eventstore.lua import Script
from shared.readmodels.scoreboard import Scoreboard

AUDIENCES = ("A", "B", "spectator")
_MAX_SETTLE_ATTEMPTS = 10

# KEYS[1] the match's views hash, KEYS[2] the match's unprojected mark, KEYS[3] the
# unprojected index (the mark's listing, cleared with it).
# ARGV[1] version, ARGV[2..4] the A, B and spectator views, ARGV[5] the summary,
# ARGV[6] '1' to also replace views of the same version (a rebuild), else '0',
# ARGV[7] '1' to clear the mark (the generation being served), else '0',
# ARGV[8] the match id, published on the channel ARGV[9] when the views are written.
# Writes only a newer version (or the same one on a rebuild), never an older one.
# Whether or not it wrote, the events up to ARGV[1] are projected, so a mark at or
# below it is deleted (a mark set by a newer append survives).
# Returns 1 if the views were written, 0 if the stored ones were kept.
_WRITE_MATCH_LUA = """
local version = tonumber(ARGV[1])
local stored = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
local wrote = 0
if version > stored or (ARGV[6] == '1' and version == stored) then
  redis.call('HSET', KEYS[1], 'version', ARGV[1], 'A', ARGV[2], 'B', ARGV[3],
             'spectator', ARGV[4], 'summary', ARGV[5])
  redis.call('PUBLISH', ARGV[9], ARGV[8])
  wrote = 1
end
if ARGV[7] == '1' then
  local mark = redis.call('GET', KEYS[2])
  if mark and tonumber(mark) <= version then
    redis.call('DEL', KEYS[2])
    redis.call('SREM', KEYS[3], ARGV[8])
  end
end
return wrote
"""
_write_match = Script(_WRITE_MATCH_LUA)


class InvalidAudienceError(ValueError):
    """An audience other than "A", "B" or "spectator"."""


def _audience(audience: str) -> str:
    if audience not in AUDIENCES:
        raise InvalidAudienceError(f"invalid audience: {audience!r}")
    return audience


def _player_ids(summary: dict[str, Any] | None) -> list[str]:
    players = (summary or {}).get("players") or {}
    return [seat["id"] for seat in players.values() if seat]


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class GenerationModels:
    """The read models of one generation on a Redis client.

    ``client`` is a ``redis.Redis``, ``RedisCluster`` or fakeredis client with
    ``decode_responses=False`` (views come back as raw JSON bytes).
    """

    def __init__(self, client: Any, generation: int = 0) -> None:
        self._client = client
        self._per_slot = is_cluster_client(client)
        self.generation = keys.validate_generation(generation)
        self._scoreboard = Scoreboard(client, generation)

    def _views_key(self, match_id: str) -> str:
        return keys.match_views(match_id, self.generation)

    # --- match views -------------------------------------------------------------

    def write_match(
        self, match_id: str, version: int, views: Mapping[str, Mapping[str, Any]],
        summary: Mapping[str, Any], *, replace_same_version: bool = False, clear_mark: bool = True,
    ) -> bool:
        """Store the views and summary of ``version`` if it is newer; clear the mark up to it.

        Returns whether the views were written (False: the stored ones are as new or
        newer, e.g. another worker got further). ``replace_same_version`` lets a rebuild
        rewrite views of the stored version, but never older ones. ``clear_mark=False``
        leaves the mark alone (a generation that reads do not use yet).
        """
        script_keys = [self._views_key(match_id), keys.match_unprojected(match_id),
                       keys.unprojected_index(match_id, self._per_slot)]
        args = [
            version, *(orjson.dumps(views[audience]) for audience in AUDIENCES),
            orjson.dumps(summary), "1" if replace_same_version else "0", "1" if clear_mark else "0",
            match_id, keys.VIEWS_CHANGED,
        ]
        return bool(int(_write_match(self._client, script_keys, args)))

    def view_json(self, match_id: str, audience: str) -> bytes | None:
        """The stored view of ``audience`` ("A", "B" or "spectator") as JSON bytes."""
        return self._client.hget(self._views_key(match_id), _audience(audience))

    def view(self, match_id: str, audience: str) -> dict[str, Any] | None:
        """The stored view of ``audience``; None if the match has not been projected."""
        raw = self.view_json(match_id, audience)
        return None if raw is None else orjson.loads(raw)

    def summary(self, match_id: str) -> dict[str, Any] | None:
        """The stored lobby summary of the match; None if it has not been projected."""
        raw = self._client.hget(self._views_key(match_id), "summary")
        return None if raw is None else orjson.loads(raw)

    def projected_version(self, match_id: str) -> int:
        """The version of the stored views; 0 if the match has not been projected."""
        raw = self._client.hget(self._views_key(match_id), "version")
        return 0 if raw is None else int(raw)

    def projected_versions(self, match_ids: list[str]) -> list[int]:
        """The stored views' version of each match (0: not projected), in one round trip."""
        pipe = self._client.pipeline(transaction=False)
        for match_id in match_ids:
            pipe.hget(self._views_key(match_id), "version")
        return [0 if raw is None else int(raw) for raw in pipe.execute()]

    # --- lobby -------------------------------------------------------------------

    def place_in_lobby(self, match_id: str, status: str, created_at_ms: int, player_ids: Sequence[str] = (),
                       read_status: bool = False) -> str | None:
        """List the match under ``status`` only, in the lobby and in each player's list (idempotent).

        ``read_status``: also the status of the stored summary (None: none), in the same round trip."""
        raw = self._place(match_id, status, created_at_ms, player_ids, then_read=read_status)
        return None if raw is None else orjson.loads(raw)["status"]

    def _place(self, match_id: str, status: str, created_at_ms: int, player_ids: Sequence[str],
               then_read: bool = False) -> bytes | None:
        """``place_in_lobby`` in one round trip; with ``then_read``, the stored summary read after it."""
        keys.validate_match_id(match_id)
        pipe = self._client.pipeline(transaction=False)
        indexes = [partial(keys.lobby, generation=self.generation)]
        indexes += [partial(keys.player_matches, player, generation=self.generation) for player in player_ids]
        for index in indexes:
            pipe.zadd(index(status), {match_id: created_at_ms})
            for other in keys.LOBBY_STATUSES:
                if other != status:
                    pipe.zrem(index(other), match_id)
        if then_read:
            pipe.hget(self._views_key(match_id), "summary")
        replies = pipe.execute()
        return replies[-1] if then_read else None

    def settle_lobby(self, match_id: str, created_at_ms: int, written: Mapping[str, Any] | None = None) -> None:
        """List the match under the status of its stored summary, until that is seen to hold.

        Run after writing the views: a slower worker may have listed the match under an
        older status in between, and the last placement must follow the last summary.
        ``written``: the summary the caller has just stored, if it did: placed without reading it first.
        """
        summary = self.summary(match_id) if written is None else written
        for _ in range(_MAX_SETTLE_ATTEMPTS):
            if summary is None:
                return
            status = summary["status"]
            raw = self._place(match_id, status, created_at_ms, _player_ids(summary), then_read=True)
            summary = None if raw is None else orjson.loads(raw)
            if summary is not None and summary["status"] == status:
                return

    def lobby(self, status: str, limit: int = 50) -> list[dict[str, Any]]:
        """Summaries of the public matches of ``status``, newest first, at most ``limit``."""
        return self._listed(keys.lobby(status, self.generation), status, limit, hide=True)

    def player_matches(self, player_id: str, status: str, limit: int = 50, hide: bool = False) -> list[dict[str, Any]]:
        """Summaries of one player's matches of ``status`` (``hide``: not the private ones), newest first."""
        return self._listed(keys.player_matches(player_id, status, self.generation), status, limit, hide)

    def _listed(self, key: str, status: str, limit: int, hide: bool = False) -> list[dict[str, Any]]:
        """The summaries an index lists under ``status`` (private ones too unless ``hide``: they stay
        indexed, for the timer's lobby expiry); a stale listing is moved as it is met."""
        found: list[dict[str, Any]] = []
        start = 0
        while len(found) < limit:
            entries = self._client.zrevrange(key, start, start + limit - 1, withscores=True)
            moved = 0
            for (member, created_at), summary in zip(entries, self._summaries(entries)):
                if summary is None:
                    continue  # listed before its views were written: shown once written
                if summary["status"] != status:
                    self.place_in_lobby(_text(member), summary["status"], int(created_at), _player_ids(summary))
                    moved += 1
                elif not (hide and summary.get("private")):
                    found.append(summary)
            if len(entries) < limit:
                break
            start += len(entries) - moved
        return found[:limit]

    def _summaries(self, entries: list[tuple[bytes, float]]) -> list[dict[str, Any] | None]:
        pipe = self._client.pipeline(transaction=False)
        for member, _ in entries:
            pipe.hget(self._views_key(_text(member)), "summary")
        return [None if raw is None else orjson.loads(raw) for raw in pipe.execute()]

    # --- scoreboard --------------------------------------------------------------

    def record_result(
        self, match_id: str, player_id: str, name: str, won: bool,
        rounds_won: int, points_for: int, points_against: int,
    ) -> bool:
        """Count one finished match for one player, exactly once; True if newly counted."""
        return self._scoreboard.record_result(
            match_id, player_id, name, won, rounds_won, points_for, points_against,
        )

    def scoreboard(self, limit: int = 50) -> dict[str, Any]:
        """``{"players": [row, ...], "version": <finished matches counted>}``, best first."""
        return self._scoreboard.scoreboard(limit)

    def player_row(self, player_id: str) -> dict[str, Any] | None:
        """One player's scoreboard row; None if none of their matches has finished."""
        return self._scoreboard.player_row(player_id)

    # --- health ------------------------------------------------------------------
