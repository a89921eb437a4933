"""One generation of the read models: match views, the lobby and the scoreboard.

Layout (key names from :mod:`shared.keys`; ``:g<N>`` is appended to every
key of generation N >= 1, generation 0 keeps the plain names):

- ``truc:{m:<id>}:views`` - one hash per match, in the match's own cluster slot: ``version``
  (the last event folded in), ``A``, ``B``, ``spectator`` (the three views) and ``summary``
  (the lobby line), each JSON bytes. The API returns the bytes as they are.
- ``truc:lobby:<status>`` and each player's lists: see :mod:`shared.readmodels.lobby_lists`.
- The scoreboard: see :mod:`shared.readmodels.scoreboard`.

The views' script refuses to move a match backwards (a slow worker's older fold is
dropped) and, when asked to, clears the match's "unprojected" mark in the same atomic
step. Only a write to the generation reads use may clear it: a generation being built
beside it does not serve anyone yet (see :mod:`shared.readmodels.served`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from shared import keys
from shared.connect import is_cluster_client
from shared.eventstore.lua import Script
from shared.readmodels.lobby_lists import ArchivedSummary, LobbyLists, no_archive
from shared.readmodels.retiring import retire
from shared.readmodels.scoreboard import Scoreboard

AUDIENCES = ("A", "B", "spectator")

# KEYS[1] the match's views hash, KEYS[2] the match's unprojected mark, KEYS[3] the
# unprojected index (the mark's listing, cleared with it), KEYS[4] the match's archive
# index entry: an archived match's keys are gone for good, and a late write brings none back.
# ARGV[1] version, ARGV[2..4] the A, B and spectator views, ARGV[5] the summary,
# ARGV[6] '1' to also replace views of the same version (a rebuild), else '0',
# ARGV[7] '1' to clear the mark (the generation being served), else '0',
# ARGV[8] the match id, published on the channel ARGV[9] when the views are written.
# Writes only a newer version (or the same one on a rebuild), never an older one.
# Whether or not it wrote, the events up to ARGV[1] are projected, so a mark at or
# below it is deleted (a mark set by a newer append survives).
# Returns 1 if the views were written, 0 if the stored ones were kept (or the match is archived).
_WRITE_MATCH_LUA = """
if redis.call('EXISTS', KEYS[4]) == 1 then
  return 0
end
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


class GenerationModels:
    """The read models of one generation on a Redis client.

    ``client`` is a ``redis.Redis``, ``RedisCluster`` or fakeredis client with
    ``decode_responses=False`` (views come back as raw JSON bytes). ``archived_summary``: the
    lobby line of a listed match whose views left with it for the archive (see
    :mod:`shared.readmodels.lobby_lists`).
    """

    def __init__(self, client: Any, generation: int = 0, archived_summary: ArchivedSummary = no_archive) -> None:
        self._client = client
        self._per_slot = is_cluster_client(client)
        self.generation = keys.validate_generation(generation)
        self._scoreboard = Scoreboard(client, generation)
        self._lobby = LobbyLists(client, self.generation, archived_summary)

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
                       keys.unprojected_index(match_id, self._per_slot), keys.match_archived(match_id)]
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

    # --- lobby (shared.readmodels.lobby_lists) ------------------------------------

    def place_in_lobby(self, match_id: str, status: str, created_at_ms: int, player_ids: Sequence[str] = (),
                       read_status: bool = False) -> str | None:
        """List the match under ``status`` only, in the lobby and in each player's list (idempotent).

        ``read_status``: also the status of the stored summary (None: none), in the same round trip."""
        return self._lobby.place(match_id, status, created_at_ms, player_ids, read_status)

    def settle_lobby(self, match_id: str, created_at_ms: int, written: Mapping[str, Any] | None = None) -> None:
        """List the match under the status of its stored summary (``written``: the one just stored)."""
        self._lobby.settle(match_id, created_at_ms, self.summary(match_id) if written is None else written)

    def retire_archived(self, match_id: str, created_at_ms: int, player_ids: Sequence[str]) -> None:
        """An archived match counted and listed again (a rebuild): its places and guards made compact."""
        retire(self._client, match_id, created_at_ms, player_ids, [self.generation])

    def lobby(self, status: str, limit: int = 50, after: str | None = None) -> list[dict[str, Any]]:
        """Summaries of the public matches of ``status``, newest first, at most ``limit``; ``after``:
        only those listed after that match (the last of the page before)."""
        return self._lobby.public(status, limit, after)

    def player_matches(self, player_id: str, status: str, limit: int = 50, hide: bool = False,
                       after: str | None = None) -> list[dict[str, Any]]:
        """Summaries of one player's matches of ``status`` (``hide``: not the private ones), newest first;
        ``after``: only those listed after that match (the last of the page before)."""
        return self._lobby.of_player(player_id, status, limit, hide, after)

    def listed_since(self, status: str, cutoff_ms: int, limit: int = 100) -> list[str]:
        """Ids of the matches listed under ``status`` created at ``cutoff_ms`` or before, oldest first."""
        return self._lobby.listed_since(status, cutoff_ms, limit)

    # --- scoreboard --------------------------------------------------------------

    def record_result(
        self, match_id: str, player_id: str, name: str, won: bool,
        rounds_won: int, points_for: int, points_against: int, created_at: int,
    ) -> bool:
        """Count one finished match for one player, exactly once; True if newly counted."""
        return self._scoreboard.record_result(
            match_id, player_id, name, won, rounds_won, points_for, points_against, created_at,
        )

    def scoreboard(self, limit: int = 50) -> dict[str, Any]:
        """``{"players": [row, ...], "version": <finished matches counted>}``, best first."""
        return self._scoreboard.scoreboard(limit)

    def player_row(self, player_id: str) -> dict[str, Any] | None:
        """One player's scoreboard row; None if none of their matches has finished."""
        return self._scoreboard.player_row(player_id)

    # --- health ------------------------------------------------------------------
