"""Each player's feed: where they are awaited, so no client lists its matches to find out.

A capped Redis stream per player (``keys.player_feed``, in the player's slot) of notices
the projector appends as it publishes a match to the served read models:

- ``turn`` ``{"match_id", "version", "deadline"}`` for the seated player who owes the next
  decision (RULES.md R28), at each projected version where someone does;
- ``match`` ``{"match_id", "status", "version"}`` for each seated player when the match's
  status changed (from the one the served summary held before).

The notices are written *after* the served views, and only when those were written (never
for an older fold than the one served), so a notice's version can always be read, and a
reader that takes the feed's position first, then scans the read models
(:func:`awaiting_turns`), then reads on from that position, misses nothing in between.
The price: a projector that dies between the views and the notices loses those notices;
the scan of the reader's next connection finds the match awaiting them all the same. A
notice may also come twice (a rebuild rewrites the served views): readers take notices
as hints and the read models as the truth.

Only the latest ``MAXLEN`` (about) are kept: a client that comes back after more than that
gets the scan of its playing matches again (:func:`awaiting_turns`), not the backlog.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

import orjson

from shared import keys
from shared.connect import is_cluster_client
from shared.eventstore.schema import iso_from_ms
from shared.fold import FoldedMatch
from shared.rules import deadline, owes

MAXLEN = 200  # notices kept per player (XADD MAXLEN ~: trimmed a macro node at a time)
SCAN_PAGE = 200  # playing matches looked at per round trip by the scan
START = "0-0"  # the position before any notice


@dataclass(frozen=True)
class Notice:
    """One entry of a player's feed."""

    id: str  # the stream entry id, "<ms>-<n>": where a reader resumes
    kind: str  # "turn" or "match"
    data: dict[str, Any]


def turn_notice(projection: FoldedMatch) -> tuple[str, dict[str, Any]] | None:
    """Whose decision the match now waits for, and the notice they get; None if no one's."""
    seat = owes(projection.state)
    player = None if seat is None else projection.state.players[seat.index]
    if player is None:
        return None
    due = deadline(projection.state)
    return player.id, {"match_id": projection.match_id, "version": projection.version,
                       "deadline": None if due is None else iso_from_ms(due)}


class Telling(NamedTuple):
    """A notice to append to a player's feed."""

    player_id: str
    kind: str  # "turn" or "match"
    data: dict[str, Any]


def notices_of(projection: FoldedMatch, *, status_changed: bool) -> list[Telling]:
    """The notices a served write of ``projection`` tells: whose turn it is, and (``status_changed``)
    each seated player of the match's new status."""
    turn = turn_notice(projection)
    notices = [] if turn is None else [Telling(turn[0], "turn", turn[1])]
    return notices + (_status_notices(projection) if status_changed else [])


class PlayerFeeds:
    """The players' feeds on a Redis client (a shared one to write, a stream's own to wait)."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def append(self, notices: Sequence[Telling], into: Any = None) -> list[str]:
        """Append ``notices``, once the served views they tell of are written, and wake their streams.

        ``into``: a pipeline to queue them on, which the caller executes; else they are sent at once.
        Returns the players still to wake once the caller's pipeline ran (a cluster pipeline cannot
        publish): hand them to :meth:`wake`.
        """
        if not notices:
            return []
        pipe = self._client.pipeline(transaction=False) if into is None else into  # one round trip; per node
        for player_id, kind, data in notices:
            pipe.xadd(keys.player_feed(player_id), {"type": kind, "data": orjson.dumps(data)},
                      maxlen=MAXLEN, approximate=True)
        told = list(dict.fromkeys(player_id for player_id, _, _ in notices))  # their streams wake, once written
        cluster = is_cluster_client(self._client)  # a cluster pipeline cannot publish: after it, then
        for player_id in () if cluster else told:
            pipe.publish(keys.PLAYERS_TOLD, player_id)
        if into is not None:
            return told if cluster else []
        pipe.execute()
        self.wake(told if cluster else [])
        return []

    def wake(self, player_ids: list[str]) -> None:
        """Wake the streams of ``player_ids``, whose notices are written."""
        for player_id in player_ids:
            self._client.publish(keys.PLAYERS_TOLD, player_id)

    def position(self, player_id: str) -> str:
        """The id of the player's latest notice (``START`` if none): read on from here."""
        latest = self._client.xrevrange(keys.player_feed(player_id), count=1)
        return _text(latest[0][0]) if latest else START

    def resumes(self, player_id: str, after: str) -> bool:
        """Whether reading on from ``after`` misses nothing: the feed still holds all after it."""
        key = keys.player_feed(player_id)
        first, latest = self._client.xrange(key, count=1), self._client.xrevrange(key, count=1)
        if not latest:
            return after == START
        return entry_order(_text(first[0][0])) <= entry_order(after) <= entry_order(_text(latest[0][0]))

    def after(self, player_id: str, after: str) -> list[Notice]:
        """The notices after ``after`` (the feed holds about ``MAXLEN``), without waiting."""
        woke = self._client.xread({keys.player_feed(player_id): after}, count=MAXLEN * 2)
        return [_notice(entry_id, fields) for _, entries in woke or () for entry_id, fields in entries]


class OnRedis(Protocol):
    """Read models on a Redis client (the Redis adapter of the read side)."""

    @property
    def client(self) -> Any: ...

    def generation(self) -> int: ...


def awaiting_turns(readmodels: OnRedis, player_id: str) -> Iterator[dict[str, Any]]:
    """A ``turn`` notice's data for each of the player's playing matches that awaits them now.

    From the served read models: the player's list of playing matches, and each one's
    stored spectator view (who is seated, who owes, by when), a page per round trip.
    """
    client, generation = readmodels.client, readmodels.generation()
    listed = keys.player_matches(player_id, "playing", generation)
    start = 0
    while True:
        match_ids = [_text(member) for member in client.zrevrange(listed, start, start + SCAN_PAGE - 1)]
        pipe = client.pipeline(transaction=False)
        for match_id in match_ids:
            pipe.hget(keys.match_views(match_id, generation), "spectator")
        for raw in pipe.execute():
            view = None if raw is None else orjson.loads(raw)
            if view is not None and view["status"] == "playing" and _owed_seat(view) == _seat_of(view, player_id):
                yield {"match_id": view["id"], "version": view["version"], "deadline": _deadline(view)}
        if len(match_ids) < SCAN_PAGE:
            return
        start += SCAN_PAGE


def _status_notices(projection: FoldedMatch) -> list[Telling]:
    """A ``match`` notice for each seated player."""
    state = projection.state
    data = {"match_id": projection.match_id, "status": state.status.value, "version": projection.version}
    return [Telling(player.id, "match", data) for player in state.players if player is not None]


def _owed_seat(view: dict[str, Any]) -> str | None:
    """The seat a view says the match waits for: the clock's, else the one asked or on turn."""
    if view.get("clock"):
        return view["clock"]["seat"]
    rnd = view.get("round")
    if rnd is None:
        return None
    pending = rnd.get("pending")
    return ("B" if pending["by"] == "A" else "A") if pending else rnd["turn"]


def _seat_of(view: dict[str, Any], player_id: str) -> str | None:
    return next((seat for seat, seated in view["players"].items() if seated and seated["id"] == player_id), None)


def _deadline(view: dict[str, Any]) -> str | None:
    return (view.get("clock") or {}).get("deadline")


def _notice(entry_id: bytes | str, fields: dict[bytes, bytes]) -> Notice:
    return Notice(_text(entry_id), _text(fields[b"type"]), orjson.loads(fields[b"data"]))


def entry_order(entry_id: str) -> tuple[int, int]:
    """Where an entry id ("<ms>-<n>") stands in its feed."""
    ms, _, seq = entry_id.partition("-")
    return int(ms), int(seq or 0)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
