"""The scoreboard read model: per-player totals, each finished match counted exactly once.

Layout (key names from :mod:`shared.keys`):

- ``truc:{p:<id>}:results`` - a hash: match id -> that match's contribution (JSON). It is
  the "already counted" ledger: the totals move only when a contribution is newly set, in
  the same script, so a retried or concurrent job can never count a match twice.
- ``truc:{p:<id>}:totals`` - a hash: name, matches_played, matches_won, rounds_won,
  points_for, points_against.
- ``truc:scoreboard`` - a sorted set ranking every player. The member is
  ``<name>\\x00<player id>`` and the score is ``-(matches_won * 2**32 + points difference)``,
  so ZRANGE (ascending) orders by matches won desc, then points difference desc, then
  name asc (byte order; ties on score are ordered by member). Exact while a player has
  fewer than 2**21 wins and a points difference within +-2**31 (doubles hold 53 bits).
  The score is SET from the totals, never incremented, so re-running is harmless.
- ``truc:scoreboard:matches`` - a set of the finished matches counted; with the counter
  ``truc:{truc:scoreboard:matches}:archived`` of those that left it when archived, the
  scoreboard's version.

An archived match keeps no ledger field and no member (:mod:`shared.archive.leaving` retires
them once its place in the player's finished list is a cold record): that record is its
"already counted" mark from then on, and the script below reads it in the player's slot.

Each key belongs to one read-model generation (``:g<N>`` appended for N >= 1, see
:mod:`shared.keys`); a ``Scoreboard`` works on the one it is given.

The totals and the ranking live in different cluster slots, so they cannot change in one
script: after setting a score we re-read the totals and set it again if they moved, so the
last score written always matches the final totals even with concurrent workers.
"""

from __future__ import annotations

from typing import Any

import orjson

from shared import keys
from shared.eventstore.lua import Script
from shared.readmodels.cold_lists import HOLDS_RECORD_LUA, finished_records_key, record_of

_COUNTERS = ("matches_played", "matches_won", "rounds_won", "points_for", "points_against")
_WON_WEIGHT = 2**32
_MAX_RANK_ATTEMPTS = 10

COUNTED, COUNTED_BEFORE, ARCHIVED = 1, 0, 2

# KEYS[1] the player's results, KEYS[2] the player's totals, KEYS[3] the cold records of the
# player's finished list the match's would be in. ARGV[1] match id, ARGV[2] contribution
# JSON, ARGV[3] name, ARGV[4] won (0/1), ARGV[5] rounds won, ARGV[6] points for, ARGV[7]
# points against, ARGV[8] the match's cold record. Returns COUNTED, COUNTED_BEFORE, or
# ARCHIVED (counted, then archived: its cold record stands for the ledger's field).
_RECORD_RESULT_LUA = HOLDS_RECORD_LUA + """
if holds_record(redis.call('GET', KEYS[3]), ARGV[8]) then
  return 2
end
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then
  return 0
end
redis.call('HSETNX', KEYS[2], 'name', ARGV[3])
redis.call('HINCRBY', KEYS[2], 'matches_played', 1)
redis.call('HINCRBY', KEYS[2], 'matches_won', ARGV[4])
redis.call('HINCRBY', KEYS[2], 'rounds_won', ARGV[5])
redis.call('HINCRBY', KEYS[2], 'points_for', ARGV[6])
redis.call('HINCRBY', KEYS[2], 'points_against', ARGV[7])
return 1
"""
_record_result = Script(_RECORD_RESULT_LUA)

# KEYS[1] the counted set, KEYS[2] its counter of archived ones (one slot): the board's version,
# read in one step (between two reads, the archiver could move a member from one to the other).
# Sent as EVAL in the page's pipeline: a short body, and no NOSCRIPT to answer.
_VERSION_LUA = "return redis.call('SCARD', KEYS[1]) + tonumber(redis.call('GET', KEYS[2]) or '0')"


def rank_score(matches_won: int, points_for: int, points_against: int) -> int:
    """The sorted-set score of a row: lower ranks first (see the module docstring)."""
    return -(matches_won * _WON_WEIGHT + (points_for - points_against))


def rank_member(name: str, player_id: str) -> str:
    """The sorted-set member of a player: ties on score sort by name, then id."""
    return f"{name}\x00{player_id}"


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _row(player_id: str, totals: dict[Any, Any]) -> dict[str, Any]:
    fields = {_text(name): value for name, value in totals.items()}
    row: dict[str, Any] = {"id": player_id, "name": _text(fields.get("name", ""))}
    row.update({counter: int(fields.get(counter, 0)) for counter in _COUNTERS})
    return row


class Scoreboard:
    """Per-player totals and their ranking of one generation, on a Redis client."""

    def __init__(self, client: Any, generation: int = 0) -> None:
        self._client = client
        self._generation = keys.validate_generation(generation)

    def record_result(
        self, match_id: str, player_id: str, name: str, won: bool,
        rounds_won: int, points_for: int, points_against: int, created_at: int,
    ) -> bool:
        """Count one finished match for one player, once; True if it was newly counted.

        Safe to repeat and to run concurrently: the ranking and the set of counted
        matches are (re)set from the totals whether or not this call counted anything,
        which also repairs a call that crashed half way. ``created_at``: the match's
        creation (epoch ms), where its cold record is looked for once it is archived.

        The match joins the counted set before the script, never after it: the archiver may
        move a counted match's member to the counter at any moment once it is projected, and
        a member added after that move would count it twice. A member this call added to a
        match the script finds archived is taken out again (it was moved, or never needed).
        """
        keys.validate_match_id(match_id)
        contribution = orjson.dumps({
            "won": bool(won), "rounds_won": rounds_won,
            "points_for": points_for, "points_against": points_against,
        })
        generation = self._generation
        args = [match_id, contribution, name, int(bool(won)), rounds_won, points_for, points_against,
                record_of(created_at, match_id)]
        script_keys = [keys.player_results(player_id, generation), keys.player_totals(player_id, generation),
                       finished_records_key(player_id, generation, created_at, match_id)]
        counted = keys.scoreboard_matches(generation)
        added = self._client.sadd(counted, match_id)
        outcome = int(_record_result(self._client, script_keys, args))
        if outcome == ARCHIVED and added:
            self._client.srem(counted, match_id)
        self._rank(player_id)
        return outcome == COUNTED

    def _rank(self, player_id: str) -> None:
        """Set the player's ranking score from the totals, until it is seen to be current."""
        totals_key = keys.player_totals(player_id, self._generation)
        totals = self._client.hgetall(totals_key)
        for _ in range(_MAX_RANK_ATTEMPTS):
            if not totals:
                return  # the generation was dropped meanwhile: nothing to rank, never a nameless row
            row = _row(player_id, totals)
            score = rank_score(row["matches_won"], row["points_for"], row["points_against"])
            self._client.zadd(keys.scoreboard(self._generation), {rank_member(row["name"], player_id): score})
            current = self._client.hgetall(totals_key)
            if current == totals:
                return
            totals = current  # another worker counted a match meanwhile: rank again

    def scoreboard(self, limit: int = 50) -> dict[str, Any]:
        """The top ``limit`` rows and the number of finished matches counted."""
        # ZRANGE 0 -1 would mean "everything": a limit of 0 asks for no rows.
        members = self._client.zrange(keys.scoreboard(self._generation), 0, limit - 1) if limit > 0 else []
        player_ids = [_text(member).rsplit("\x00", 1)[1] for member in members]
        pipe = self._client.pipeline(transaction=False)
        for player_id in player_ids:
            pipe.hgetall(keys.player_totals(player_id, self._generation))
        pipe.execute_command("EVAL", _VERSION_LUA, 2, keys.scoreboard_matches(self._generation),
                             keys.scoreboard_archived(self._generation))
        *all_totals, version = pipe.execute()
        players = [_row(pid, totals) for pid, totals in zip(player_ids, all_totals) if totals]
        return {"players": players, "version": int(version)}

    def player_row(self, player_id: str) -> dict[str, Any] | None:
        """The player's scoreboard row; None if no finished match of theirs was counted."""
        totals = self._client.hgetall(keys.player_totals(player_id, self._generation))
        return _row(player_id, totals) if totals else None
