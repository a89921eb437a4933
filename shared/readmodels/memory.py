"""The read-model store in memory: one generation of views, lobby and scoreboard in dicts.

For tests and tools that need no Redis; it passes the same contract suite as the Redis
adapter (:mod:`shared.readmodels.port`). It holds no "unprojected" marks (those are the
event store's): ``clear_mark`` is accepted and has nothing to clear.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from shared import keys
from shared.eventstore.schema import ms_from_iso
from shared.readmodels.lobby_lists import ArchivedSummary, no_archive
from shared.readmodels.scoreboard import rank_member, rank_score
from shared.readmodels.writes import AUDIENCES, InvalidAudienceError

_COUNTERS = ("matches_played", "matches_won", "rounds_won", "points_for", "points_against")


class InMemoryGenerationModels:
    """One generation of the read models, in this process (``archived_summary``: as on Redis)."""

    def __init__(self, generation: int = 0, archived_summary: ArchivedSummary = no_archive) -> None:
        self.generation = keys.validate_generation(generation)
        self._archived_summary = archived_summary
        self._lock = threading.Lock()
        self._views: dict[str, dict[str, Any]] = {}  # match id -> {"version", audiences..., "summary"} (JSON bytes)
        self._listed: dict[tuple[str, str], dict[str, int]] = {}  # (index, status) -> match id -> created at
        self._results: dict[str, dict[str, bytes]] = {}  # player -> match id -> contribution
        self._totals: dict[str, dict[str, Any]] = {}  # player -> name and counters
        self._counted: set[str] = set()

    # --- match views -------------------------------------------------------------

    def write_match(
        self, match_id: str, version: int, views: Mapping[str, Mapping[str, Any]],
        summary: Mapping[str, Any], *, replace_same_version: bool = False, clear_mark: bool = True,
    ) -> bool:
        """Store the views and summary of ``version`` if it is newer (or the same, ``replace_same_version``)."""
        keys.validate_match_id(match_id)
        with self._lock:
            stored = self._views.get(match_id, {}).get("version", 0)
            if not (version > stored or (replace_same_version and version == stored)):
                return False
            self._views[match_id] = {"version": version, "summary": orjson.dumps(summary),
                                     **{audience: orjson.dumps(views[audience]) for audience in AUDIENCES}}
            return True

    def view_json(self, match_id: str, audience: str) -> bytes | None:
        if audience not in AUDIENCES:
            raise InvalidAudienceError(f"invalid audience: {audience!r}")
        return self._views.get(match_id, {}).get(audience)

    def view(self, match_id: str, audience: str) -> dict[str, Any] | None:
        raw = self.view_json(match_id, audience)
        return None if raw is None else orjson.loads(raw)

    def summary(self, match_id: str) -> dict[str, Any] | None:
        raw = self._views.get(match_id, {}).get("summary")
        return None if raw is None else orjson.loads(raw)

    def projected_version(self, match_id: str) -> int:
        return self._views.get(match_id, {}).get("version", 0)

    def projected_versions(self, match_ids: list[str]) -> list[int]:
        return [self.projected_version(match_id) for match_id in match_ids]

    # --- lobby -------------------------------------------------------------------

    def place_in_lobby(self, match_id: str, status: str, created_at_ms: int, player_ids: Sequence[str] = (),
                       read_status: bool = False) -> str | None:
        """List the match under ``status`` only, in the lobby and each player's list; with
        ``read_status``, the status of the stored summary (None: none)."""
        keys.validate_match_id(match_id)
        with self._lock:
            for index in ["lobby", *(f"player:{player}" for player in player_ids)]:
                for other in keys.LOBBY_STATUSES:
                    self._listed.setdefault((index, other), {}).pop(match_id, None)
                self._listed.setdefault((index, status), {})[match_id] = created_at_ms
        stored = self.summary(match_id) if read_status else None
        return None if stored is None else stored["status"]

    def settle_lobby(self, match_id: str, created_at_ms: int, written: Mapping[str, Any] | None = None) -> None:
        """List the match under the status of its stored summary."""
        summary = self.summary(match_id)
        if summary is not None:
            self.place_in_lobby(match_id, summary["status"], created_at_ms, _player_ids(summary))

    def retire_archived(self, match_id: str, created_at_ms: int, player_ids: Sequence[str]) -> None:
        """Nothing to make compact: memory keeps every list whole (the Redis adapter's cold records)."""

    def lobby(self, status: str, limit: int = 50, after: str | None = None) -> list[dict[str, Any]]:
        return self._listing("lobby", status, limit, hide=True, after=after)

    def player_matches(self, player_id: str, status: str, limit: int = 50, hide: bool = False,
                       after: str | None = None) -> list[dict[str, Any]]:
        return self._listing(f"player:{player_id}", status, limit, hide, after)

    def listed_since(self, status: str, cutoff_ms: int, limit: int = 100) -> list[str]:
        """Ids of the matches listed under ``status`` created at ``cutoff_ms`` or before, oldest first."""
        lobby = self._listed.get(("lobby", status), {})
        listed = sorted((created_at, match_id) for match_id, created_at in lobby.items() if created_at <= cutoff_ms)
        return [match_id for _, match_id in listed[:max(limit, 0)]]

    def _listing(self, index: str, status: str, limit: int, hide: bool,
                 after: str | None = None) -> list[dict[str, Any]]:
        """Newest first (ties: the greater id first, as Redis's ZREVRANGE), past ``after``'s place (its
        creation time and id, from its summary); a stale listing is moved."""
        listed = sorted(self._listed.get((index, status), {}).items(), key=lambda item: (item[1], item[0]),
                        reverse=True)
        if after is not None:
            marker = self.summary(after) or self._archived_summary(after) or {}
            if marker.get("created_at") is None:
                return []  # no such match: nothing is listed after it
            place = (ms_from_iso(marker["created_at"]), after)
            listed = [(match_id, created_at) for match_id, created_at in listed if (created_at, match_id) < place]
        found = []
        for match_id, created_at in listed:
            summary = self.summary(match_id)
            if summary is None:
                summary = self._archived_summary(match_id)
            if summary is None:
                continue  # listed before its views were written (shown once written), or unreadable
            if summary["status"] != status:
                self.place_in_lobby(match_id, summary["status"], created_at, _player_ids(summary))
            elif not (hide and summary.get("private")):
                found.append(summary)
        return found[:max(limit, 0)]

    # --- scoreboard --------------------------------------------------------------

    def record_result(self, match_id: str, player_id: str, name: str, won: bool,
                      rounds_won: int, points_for: int, points_against: int, created_at: int) -> bool:
        """Count one finished match for one player, exactly once; True if newly counted."""
        keys.validate_match_id(match_id)
        with self._lock:
            self._counted.add(match_id)
            results = self._results.setdefault(player_id, {})
            if match_id in results:
                return False
            results[match_id] = orjson.dumps({"won": bool(won), "rounds_won": rounds_won,
                                              "points_for": points_for, "points_against": points_against})
            totals = self._totals.setdefault(player_id, {"name": name, **dict.fromkeys(_COUNTERS, 0)})
            for counter, amount in zip(_COUNTERS, (1, int(bool(won)), rounds_won, points_for, points_against)):
                totals[counter] += amount
            return True

    def scoreboard(self, limit: int = 50) -> dict[str, Any]:
        """The top ``limit`` rows and the number of finished matches counted."""
        rows = sorted((self.player_row(player) for player in self._totals), key=_rank)
        return {"players": rows[:max(limit, 0)], "version": len(self._counted)}

    def player_row(self, player_id: str) -> dict[str, Any] | None:
        totals = self._totals.get(player_id)
        return None if totals is None else {"id": player_id, **totals}


def _rank(row: dict[str, Any]) -> tuple[int, bytes]:
    """Where Redis's sorted set puts the row: by score, then by member's bytes."""
    score = rank_score(row["matches_won"], row["points_for"], row["points_against"])
    return score, rank_member(row["name"], row["id"]).encode()


def _player_ids(summary: dict[str, Any]) -> list[str]:
    return [seat["id"] for seat in (summary.get("players") or {}).values() if seat]
