"""A player's new name (a rename, or an erasure's placeholder) written into every read model that names them.

Views, lobby lines and scoreboard rows embed the players' names as they were projected
(:mod:`shared.readmodels.projection`), so once the directory holds the new name the stored
copies are rewritten at once, without folding anything: each match the player's lists hold
(every status, in the generation served and in one being built) gets its stored views and
summary rewritten where a seat holds the player's id, and the scoreboard row is renamed.
A projector write racing the rewrite is caught by the views' compare-and-set (the stored
bytes must be those read, else they are read again). Archived matches have no views left:
their lines are folded when read, and the processes that keep them are told on
``keys.PLAYERS_RENAMED`` to forget what they kept.
"""
from __future__ import annotations

from typing import Any

import orjson

from shared import keys
from shared.eventstore.lua import Script
from shared.readmodels.cold_lists import PLAYER_SPAN_MS, newest_first
from shared.readmodels.generations import read_pointer
from shared.readmodels.scoreboard import rank_member
from shared.readmodels.writes import AUDIENCES

_FIELDS = (*AUDIENCES, "summary")
_ATTEMPTS = 10

# KEYS[1] a match's views hash; ARGV: field, bytes read, bytes to write, for each field.
# Writes them all only if every field still holds the bytes read (a projector may have written since).
_SWAP_LUA = """
for i = 1, #ARGV, 3 do
  if redis.call('HGET', KEYS[1], ARGV[i]) ~= ARGV[i + 1] then
    return 0
  end
end
for i = 1, #ARGV, 3 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 2])
end
return 1
"""
_swap = Script(_SWAP_LUA)


def rename_in_read_models(client: Any, player_id: str, name: str) -> int:
    """Write ``name`` for ``player_id`` into every stored view, summary and scoreboard row; the matches rewritten.
    Then every process is told (``keys.PLAYERS_RENAMED``) to forget the lines it kept of them."""
    pointer = read_pointer(client)
    rewritten = 0
    for generation in dict.fromkeys(g for g in (pointer.generation, pointer.building) if g is not None):
        for match_id in listed_matches(client, player_id, generation):
            rewritten += _rename_views(client, keys.match_views(match_id, generation), player_id, name)
        _rename_row(client, player_id, name, generation)
    client.publish(keys.PLAYERS_RENAMED, player_id)
    return rewritten


def listed_matches(client: Any, player_id: str, generation: int) -> list[str]:
    """Every match id the player's lists of ``generation`` hold, whatever its status: those in the
    sorted sets, then the archived ones moved to the lists' cold records."""
    lists = [keys.player_matches(player_id, status, generation) for status in keys.LOBBY_STATUSES]
    pipe = client.pipeline(transaction=False)
    for list_key in lists:
        pipe.zrange(list_key, 0, -1)
    hot = [member.decode() for members in pipe.execute() for member in members]
    cold = [match_id.decode() for list_key in lists for _, match_id in newest_first(client, list_key, PLAYER_SPAN_MS)]
    return list(dict.fromkeys(hot + cold))


def _rename_views(client: Any, views_key: str, player_id: str, name: str) -> int:
    """Rename the player in one match's stored views (1 if any was rewritten; 0: none stored, e.g. archived)."""
    for _ in range(_ATTEMPTS):
        stored = dict(zip(_FIELDS, client.hmget(views_key, *_FIELDS)))
        swaps: list[bytes | str] = []
        for field, raw in stored.items():
            if raw is not None and (renamed := renamed_json(raw, player_id, name)) != raw:
                swaps += [field, raw, renamed]
        if not swaps:
            return 0
        if int(_swap(client, [views_key], swaps)):
            return 1
    return 0  # written over and over meanwhile: each of those writes named the player from the directory


def renamed_json(raw: bytes, player_id: str, name: str) -> bytes:
    """A stored view or summary (JSON bytes) with the seat of ``player_id`` named ``name``; ``raw`` if none is."""
    shown = orjson.loads(raw)
    seats = [seat for seat in (shown.get("players") or {}).values() if seat and seat.get("id") == player_id]
    if all(seat.get("name") == name for seat in seats):
        return raw
    for seat in seats:
        seat["name"] = name
    return orjson.dumps(shown)


def _rename_row(client: Any, player_id: str, name: str, generation: int) -> None:
    """The player's scoreboard row named ``name``: its totals and its ranking member (tied rows sort by name)."""
    totals_key, board = keys.player_totals(player_id, generation), keys.scoreboard(generation)
    old = client.hget(totals_key, "name")
    if old is None or old.decode() == name:
        return
    client.hset(totals_key, "name", name)
    new_member = rank_member(name, player_id)
    for _ in range(_ATTEMPTS):  # a ranking racing this one may have put the old member back
        score = client.zscore(board, rank_member(old.decode(), player_id))
        if score is None:
            return
        client.zadd(board, {new_member: score})
        client.zrem(board, rank_member(old.decode(), player_id))
