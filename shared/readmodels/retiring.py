"""An archived match's share of the lists and the scoreboard, made compact in one generation.

Its places in the lobby's and its players' lists move to their cold records (:func:`chill_lists`:
one idempotent script per list). The scoreboard keeps its totals; its guards against counting
the match twice leave (:func:`retire_counts`): a player's ledger field goes once the player's
cold record stands in its place (the results script of :mod:`shared.readmodels.scoreboard`
reads that record), and the match's member of the counted set becomes one more in the set's
counter, so the board's version stays what it was. Each step checks what the step before left,
so any crash between them leaves the match counted once and listed once, and a rerun finishes.

The archiver runs both once a match has left Redis; a rebuild, for each archived match it
counts and lists again in the generation it builds.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from shared import keys
from shared.eventstore.lua import Script
from shared.readmodels.cold_lists import (
    HOLDS_RECORD_LUA,
    LOBBY_SPAN_MS,
    PLAYER_SPAN_MS,
    chill,
    finished_records_key,
    record_of,
)

CHILLED_STATUSES = ("finished", "cancelled")  # the lists an ended match may be in

# KEYS[1] a player's ledger of counted matches, KEYS[2] the cold records of the player's
# finished list the match's is in; ARGV[1] the match id, ARGV[2] its cold record. Drops the
# ledger's field once the record stands for it; 1 if the record is there (the field gone or
# never set), 0 if not (the field kept).
_RETIRE_LEDGER = Script(HOLDS_RECORD_LUA + """
if not holds_record(redis.call('GET', KEYS[2]), ARGV[2]) then
  return 0
end
redis.call('HDEL', KEYS[1], ARGV[1])
return 1
""")

# KEYS[1] the scoreboard's counted set, KEYS[2] its counter of archived ones (one slot);
# ARGV[1] the match id. Moves a counted match from the set to the counter, once.
_RETIRE_COUNTED = Script("""
if redis.call('SREM', KEYS[1], ARGV[1]) == 1 then
  redis.call('INCR', KEYS[2])
end
return 0
""")


def chill_lists(client: Any, match_id: str, player_ids: Sequence[str], generations: Sequence[int]) -> int:
    """Move the match's members of the lobby's and its players' lists to their cold records; how many moved."""
    moved = 0
    for generation in generations:
        for status in CHILLED_STATUSES:
            moved += chill(client, keys.lobby(status, generation), match_id, LOBBY_SPAN_MS)
            moved += sum(chill(client, keys.player_matches(player_id, status, generation), match_id, PLAYER_SPAN_MS)
                         for player_id in player_ids)
    return moved


def retire_counts(client: Any, match_id: str, created_at: int, player_ids: Sequence[str],
                  generations: Sequence[int]) -> None:
    """Drop the scoreboard's per-match guards of a match whose lists are chilled (see above).

    In a generation where some player's record is not cold yet (a rebuild that has counted the
    match but not listed it), its guards stay: the set's member with them, as a duplicate
    count there would find the ledger's field and put the member back.
    """
    record = record_of(created_at, match_id)
    for generation in generations:
        retired = [int(_RETIRE_LEDGER(client, [keys.player_results(player_id, generation),
                                               finished_records_key(player_id, generation, created_at, match_id)],
                                      [match_id, record])) for player_id in player_ids]
        if all(retired):
            _RETIRE_COUNTED(client, [keys.scoreboard_matches(generation), keys.scoreboard_archived(generation)],
                            [match_id])


def retire(client: Any, match_id: str, created_at: int, player_ids: Sequence[str],
           generations: Sequence[int], chilled: Callable[[], None] = lambda: None) -> None:
    """Both steps, in their order: the lists chilled (then ``chilled()``), then the guards their records stand for."""
    chill_lists(client, match_id, player_ids, generations)
    chilled()
    retire_counts(client, match_id, created_at, player_ids, generations)
