"""The ``truc export`` file: writing one, and reading one back, where everything a hostile file
could carry is refused first.

An export is JSON lines: a header ``{"format", "match_id", "events", "seed", "players"}``
(``players``: each seated player's id and name as the exporting server's directory named
them; schema 1 recorded the names in the events themselves), then one recorded event per
line. The file comes from outside, and its hash chain proves nothing
(anyone can recompute it), so before the audit replays a single event every value that
will become part of a Redis key or be shown to someone is held to the API's own rules:

- the match id (header) obeys :func:`shared.keys.validate_match_id`, and the
  ``match_created`` event names the same match;
- every player id and name of ``match_created`` and ``player_joined`` obeys
  :mod:`shared.identity`, as if the player had registered through the API;
- the header announces as many events as follow, and its seed is null or a string.

Whatever is wrong, :class:`ExportError` says so with a stable code and one sentence; the
values it quotes are shortened and made printable.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from marshmallow import ValidationError

from shared import keys
from shared.eventstore import StoredEvent
from shared.eventstore.schema import event_from_json, event_to_json
from shared.identity import ID_RULE, NAME_RULE, validate_player_id, validate_player_name

from .untrusted import printable

FORMAT = "truc-match/1"
_SHOWN_CHARS = 80

# Event type -> (player id field, player name field) of the player it seats.
SEATING = {"match_created": ("creator_id", "creator_name"), "player_joined": ("player_id", "player_name")}


class ExportError(ValueError):
    """An export that cannot be imported: ``code`` is stable, the message one sentence."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Export:
    """An export that passed every check of this module (the audit is still to come)."""

    match_id: str
    seed: str | None
    events: list[StoredEvent]
    names: dict[str, str]  # player id -> name: the header's, and those schema-1 events recorded


def recorded_names(stored: Iterable[StoredEvent]) -> dict[str, str]:
    """The names schema-1 events recorded beside the ids they seat (schema 2 records none)."""
    found = {}
    for event in stored:
        id_field, name_field = SEATING.get(event.type, (None, None))
        if id_field is not None and isinstance(event.data.get(name_field), str):
            found[event.data[id_field]] = event.data[name_field]
    return found


def shown(value: object, limit: int = _SHOWN_CHARS) -> str:
    """``value`` quoted for a message: its repr, shortened, every control character escaped."""
    text = repr(value)
    if len(text) > limit:
        text = text[:limit - 1] + "…"
    return printable(text)


def export_lines(match_id: str, stored: Sequence[StoredEvent], seed: str | None = None,
                 names: Mapping[str, str] | None = None) -> list[bytes]:
    """The lines of a match's export: its header (with its players' ``names``), then each
    recorded event as it is stored."""
    header = {"format": FORMAT, "match_id": match_id, "events": len(stored), "seed": seed,
              "players": dict(names or {})}
    return [orjson.dumps(header) + b"\n", *(orjson.dumps(event_to_json(event)) + b"\n" for event in stored)]


def read_export(lines: Iterable[bytes]) -> Export:
    """Parse and check an export's lines; raises :class:`ExportError` naming the first problem."""
    parsed = [(number, _parse(number, line)) for number, line in enumerate(lines, 1) if line.strip()]
    if not parsed:
        raise ExportError("EMPTY_EXPORT", "The file is empty: an export starts with a header line.")
    match_id, count, seed = _header(*parsed[0])
    header_names = _players(parsed[0][1].get("players", {}))
    if count != len(parsed) - 1:
        raise ExportError("WRONG_COUNT", f"The header announces {count} event(s), but {len(parsed) - 1} follow.")
    if not count:
        raise ExportError("NO_EVENTS", "The export holds no event.")
    events = [_event(match_id, number, payload) for number, payload in parsed[1:]]
    return Export(match_id, seed, events, {**recorded_names(events), **header_names})


def _players(players: object) -> dict[str, str]:
    """The header's players, each id and name held to the API's rules."""
    if not isinstance(players, dict):
        raise ExportError("BAD_HEADER", f"The header's players {shown(players)} are not an object.")
    for player_id, name in players.items():
        try:
            validate_player_id(player_id)
            validate_player_name(name)
        except ValueError:
            raise ExportError("BAD_HEADER", f"The header names the player {shown(player_id)} {shown(name)}, "
                                            f"which is not {ID_RULE} and {NAME_RULE}") from None
    return dict(players)


def _parse(number: int, line: bytes) -> dict[str, Any]:
    try:
        payload = orjson.loads(line)
    except orjson.JSONDecodeError:
        raise ExportError("NOT_JSON", f"Line {number} is not valid JSON.") from None
    if not isinstance(payload, dict):
        raise ExportError("NOT_AN_OBJECT", f"Line {number} is not a JSON object.")
    return payload


def _header(number: int, header: Mapping[str, Any]) -> tuple[str, int, str | None]:
    """The header's match id, event count and seed, each checked."""
    if header.get("format") != FORMAT:
        raise ExportError("NOT_AN_EXPORT", f"Line {number} is not a {FORMAT} header.")
    match_id = header.get("match_id")
    try:
        keys.validate_match_id(match_id)  # type: ignore[arg-type]
    except keys.InvalidMatchIdError:
        raise ExportError("BAD_MATCH_ID", f"The header's match id {shown(match_id)} is not {ID_RULE}") from None
    count = header.get("events")
    if isinstance(count, bool) or not isinstance(count, int):
        raise ExportError("BAD_HEADER", f"The header's event count {shown(count)} is not a whole number.")
    seed = header.get("seed")
    if seed is not None and not isinstance(seed, str):
        raise ExportError("BAD_HEADER", f"The header's seed {shown(seed)} is neither null nor a string.")
    return match_id, count, seed


def _event(match_id: str, number: int, payload: dict[str, Any]) -> StoredEvent:
    try:
        event = event_from_json(match_id, payload)
    except ValidationError as error:
        problems = shown(error.messages, 2 * _SHOWN_CHARS)
        raise ExportError("BAD_EVENT", f"Line {number} is not a recorded event: {problems}.") from None
    seating = SEATING.get(event.type)
    if seating is not None:
        _check_seating(match_id, number, event, *seating)
    return event


def _check_seating(match_id: str, number: int, event: StoredEvent, id_field: str, name_field: str) -> None:
    """The ids and name of an event that seats a player are ones the API could have written."""
    where = f"Line {number} ({event.type})"
    if event.type == "match_created" and event.data.get("match_id") != match_id:
        raise ExportError("MATCH_ID_MISMATCH", f"{where} creates the match {shown(event.data.get('match_id'))}, "
                                               f"but the header names {shown(match_id)}.")
    try:
        validate_player_id(event.data.get(id_field))
    except ValueError:
        raise ExportError("BAD_PLAYER_ID", f"{where} has the player id {shown(event.data.get(id_field))}, "
                                           f"which is not {ID_RULE}") from None
    if event.schema_version > 1 and name_field not in event.data:  # schema 2 seats by id only
        return
    try:
        validate_player_name(event.data.get(name_field))
    except ValueError:
        raise ExportError("BAD_PLAYER_NAME", f"{where} has the player name {shown(event.data.get(name_field))}, "
                                             f"which is not {NAME_RULE}") from None
