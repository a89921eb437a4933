"""The lobby's lists of one generation: which matches are waiting, playing, finished or
cancelled, in the lobby and in each player's own lists.

Layout (key names from :mod:`shared.keys`): ``truc:lobby:<status>`` and each player's
``truc:player:<id>:matches:<status>``, sorted sets of match ids scored by creation time
(epoch ms), read with the summaries the views' hashes hold. They live outside the match's
slot, so they cannot change in the views' script: the projector places a match before
writing its views and settles it after, and a read moves any member whose summary has
another status (so the lists heal themselves). Private matches stay listed (the timer's
lobby expiry finds them here) and are left out of what the public is shown.

An archived match stays listed with no views left (the archiver deletes them), its member
moved to the list's cold records (:mod:`shared.readmodels.cold_lists`; a list reads both,
merged in the sorted set's order): its line comes from ``archived_summary``, the callable the
read side was built with (the archive's business, not this module's); a member with neither
is skipped (listed before its views were written, or an archived record unreadable now).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

import orjson

from shared import keys
from shared.eventstore.schema import ms_from_iso
from shared.readmodels.cold_lists import LOBBY_SPAN_MS, PLAYER_SPAN_MS, newest_first

MAX_SETTLE_ATTEMPTS = 10  # a placement chasing summaries that keep changing gives up, healed by the next read

ArchivedSummary = Callable[[str], dict[str, Any] | None]  # an archived match's lobby line; None: none


def no_archive(match_id: str) -> None:
    """The lines of a read side that reads no archive: none."""


class LobbyLists:
    """The lists of generation ``generation`` on a Redis client (``decode_responses=False``)."""

    def __init__(self, client: Any, generation: int, archived_summary: ArchivedSummary = no_archive) -> None:
        self._client = client
        self._generation = generation
        self._archived_summary = archived_summary

    def place(self, match_id: str, status: str, created_at_ms: int, player_ids: Sequence[str] = (),
              read_status: bool = False) -> str | None:
        """List the match under ``status`` only (idempotent); with ``read_status``, the stored
        summary's status (None: none), in the same round trip."""
        raw = self._place(match_id, status, created_at_ms, player_ids, then_read=read_status)
        return None if raw is None else orjson.loads(raw)["status"]

    def settle(self, match_id: str, created_at_ms: int, summary: Mapping[str, Any] | None) -> None:
        """List the match under the status of its stored summary, until that is seen to hold.

        Run after writing the views: a slower worker may have listed the match under an
        older status in between, and the last placement must follow the last summary.
        """
        for _ in range(MAX_SETTLE_ATTEMPTS):
            if summary is None:
                return
            status = summary["status"]
            raw = self._place(match_id, status, created_at_ms, _player_ids(summary), then_read=True)
            summary = None if raw is None else orjson.loads(raw)
            if summary is not None and summary["status"] == status:
                return

    def public(self, status: str, limit: int = 50, after: str | None = None) -> list[dict[str, Any]]:
        """Summaries of the public matches of ``status``, newest first, at most ``limit``;
        ``after``: only those listed after that match (the last of the page before)."""
        place = None if after is None else self._place_of(after)
        if after is not None and place is None:
            return []
        return self._listed(keys.lobby(status, self._generation), status, limit, hide=True, after=place,
                            span_ms=LOBBY_SPAN_MS)

    def of_player(self, player_id: str, status: str, limit: int = 50, hide: bool = False,
                  after: str | None = None) -> list[dict[str, Any]]:
        """Summaries of one player's matches of ``status`` (``hide``: not the private ones), newest first;
        ``after``: only those listed after that match (the last of the page before)."""
        key = keys.player_matches(player_id, status, self._generation)
        if after is None:
            return self._listed(key, status, limit, hide)
        place = self._place_of(after)
        return [] if place is None else self._listed(key, status, limit, hide, place)

    def listed_since(self, status: str, cutoff_ms: int, limit: int = 100) -> list[str]:
        """Ids of the matches listed under ``status`` created at ``cutoff_ms`` or before, oldest first
        (its sorted set's: the cold records hold archived matches only, never waiting or playing)."""
        lobby = keys.lobby(status, self._generation)
        return [_text(member) for member in self._client.zrangebyscore(lobby, "-inf", cutoff_ms, 0, limit)]

    def _place(self, match_id: str, status: str, created_at_ms: int, player_ids: Sequence[str],
               then_read: bool = False) -> bytes | None:
        """``place`` in one round trip; with ``then_read``, the stored summary read after it."""
        keys.validate_match_id(match_id)
        pipe = self._client.pipeline(transaction=False)
        indexes = [partial(keys.lobby, generation=self._generation)]
        indexes += [partial(keys.player_matches, player, generation=self._generation) for player in player_ids]
        for index in indexes:
            pipe.zadd(index(status), {match_id: created_at_ms})
            for other in keys.LOBBY_STATUSES:
                if other != status:
                    pipe.zrem(index(other), match_id)
        if then_read:
            pipe.hget(keys.match_views(match_id, self._generation), "summary")
        replies = pipe.execute()
        return replies[-1] if then_read else None

    def _place_of(self, match_id: str) -> tuple[float, str] | None:
        """Where a page after ``match_id`` starts: its creation time and id (None: no such match).

        Read from its summary (an archived match's line), not its place in the list: a match that
        changed status since the page before (left this list) still marks where the next page begins."""
        raw = self._client.hget(keys.match_views(keys.validate_match_id(match_id), self._generation), "summary")
        summary = self._archived_summary(match_id) if raw is None else orjson.loads(raw)
        created_at = None if summary is None else summary.get("created_at")
        return None if created_at is None else (ms_from_iso(created_at), match_id)

    def _listed(self, key: str, status: str, limit: int, hide: bool = False,
                after: tuple[float, str] | None = None, span_ms: int = PLAYER_SPAN_MS) -> list[dict[str, Any]]:
        """The summaries an index lists under ``status`` (private ones too unless ``hide``), past ``after``
        (a creation time and an id): its sorted set's and its cold records', merged as the set orders them."""
        if limit <= 0:
            return []
        hot = self._hot(key, status, limit, hide, after)
        floor = hot[limit - 1][0] if len(hot) >= limit else None
        cold = self._cold(key, span_ms, (status, limit, hide), after, floor)
        return [summary for _, summary in sorted(hot + cold, key=lambda item: item[0], reverse=True)[:limit]]

    def _hot(self, key: str, status: str, limit: int, hide: bool,
             after: tuple[float, str] | None) -> list[tuple[tuple[int, bytes], dict[str, Any]]]:
        """The sorted set's first ``limit`` shown, each with its place; a stale listing is moved as it is met."""
        found: list[tuple[tuple[int, bytes], dict[str, Any]]] = []
        start = 0
        while len(found) < limit:
            entries = self._page(key, start, limit, after)
            moved = 0
            for (member, created_at), summary in zip(entries, self._summaries(entries)):
                if after is not None and created_at == after[0] and _text(member) >= after[1]:
                    continue  # as old as ``after`` and ordered before it (ZREVRANGE: the greater id first)
                if summary is None:
                    continue  # listed before its views were written (shown once written), or unreadable
                if summary["status"] != status:
                    self.place(_text(member), summary["status"], int(created_at), _player_ids(summary))
                    moved += 1
                elif not (hide and summary.get("private")):
                    found.append(((int(created_at), _bytes(member)), summary))
            if len(entries) < limit:
                break
            start += len(entries) - moved
        return found[:limit]

    def _cold(self, key: str, span_ms: int, shown: tuple[str, int, bool], after: tuple[float, str] | None,
              floor: tuple[int, bytes] | None) -> list[tuple[tuple[int, bytes], dict[str, Any]]]:
        """The cold records' first ``limit`` shown (``shown``: status, limit, hide), none at or past ``floor``
        (the sorted set filled the page there)."""
        status, limit, hide = shown
        mark = None if after is None else (int(after[0]), after[1].encode())
        found: list[tuple[tuple[int, bytes], dict[str, Any]]] = []
        batch: list[tuple[int, bytes]] = []
        for place in newest_first(self._client, key, span_ms, None if after is None else after[0]):
            if floor is not None and place < floor:
                break
            if mark is None or place < mark:
                batch.append(place)
            if len(batch) >= limit:
                found += self._shown(key, batch, status, hide)
                batch = []
                if len(found) >= limit:
                    break
        return found + self._shown(key, batch, status, hide)

    def _shown(self, key: str, places: list[tuple[int, bytes]], status: str,
               hide: bool) -> list[tuple[tuple[int, bytes], dict[str, Any]]]:
        """The lines of these cold records that the list shows. One its sorted set lists again (a match
        restored, or placed anew by a rebuild) is shown from there, once."""
        pipe = self._client.pipeline(transaction=False)
        for _, member in places:
            pipe.zscore(key, member)
            pipe.hget(keys.match_views(_text(member), self._generation), "summary")
        replies = pipe.execute()
        lines = [(place, self._archived_summary(_text(place[1])) if raw is None else orjson.loads(raw))
                 for place, hot, raw in zip(places, replies[::2], replies[1::2]) if hot is None]
        return [(place, line) for place, line in lines
                if line is not None and line["status"] == status and not (hide and line.get("private"))]

    def _page(self, key: str, start: int, count: int, after: tuple[float, str] | None) -> list[tuple[bytes, float]]:
        if after is None:
            return self._client.zrevrange(key, start, start + count - 1, withscores=True)
        return self._client.zrevrangebyscore(key, after[0], "-inf", start, count, withscores=True)

    def _summaries(self, entries: list[tuple[bytes, float]]) -> list[dict[str, Any] | None]:
        """The stored summary of each entry, else its archived line (None: neither)."""
        pipe = self._client.pipeline(transaction=False)
        for member, _ in entries:
            pipe.hget(keys.match_views(_text(member), self._generation), "summary")
        return [self._archived_summary(_text(member)) if raw is None else orjson.loads(raw)
                for (member, _), raw in zip(entries, pipe.execute())]


def _player_ids(summary: Mapping[str, Any] | None) -> list[str]:
    players = (summary or {}).get("players") or {}
    return [seat["id"] for seat in players.values() if seat]


def _bytes(value: bytes | str) -> bytes:
    return value.encode() if isinstance(value, str) else value


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
