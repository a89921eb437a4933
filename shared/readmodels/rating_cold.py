"""The compact form of the oldest part of a player's rating history (pure).

A rated match's two history entries cost Redis some 60 bytes each while a player's sorted set
is small, and some 140 once it passes 128 entries: too much for matches that have left Redis.
When a rated match is archived, its players' entries up to it (every earlier one too: the cold
part is always the history's oldest part, so a fold never starts inside it) move to one
string per player:

- a header: the player's standing after the last cold entry, exact (rating, RD and volatility
  as doubles; games and wins), where a fold that starts after it begins;
- then one record per entry, oldest first, :data:`RECORD_BYTES` wide: the match's end (6 bytes,
  epoch ms), the rating and RD after it as single floats (within 0.001 of a point: what a
  history shows), a byte of flags (won, seated in A), and the opponent's and the match's ids
  as the bytes their base64url text stands for (12 and 9 bytes: the server's ids of 16 and 12
  characters). An entry with other ids cannot be a record: the move stops before it.
"""

from __future__ import annotations

import base64
import math
import struct

from shared.ratings.glicko2 import Rating
from shared.ratings.rating_fold import Change, PlayerRating, RatedResult
from shared.readmodels.rating_entries import SEATED_A, WON, entry_flags, entry_from, entry_match

_HEADER = struct.Struct("<dddII")
_VALUES = struct.Struct("<ffB")
_TIME_BYTES, _PLAYER_ID_CHARS, _MATCH_ID_CHARS = 6, 16, 12
HEADER_BYTES = _HEADER.size  # 32
RECORD_BYTES = _TIME_BYTES + _VALUES.size + _PLAYER_ID_CHARS * 3 // 4 + _MATCH_ID_CHARS * 3 // 4  # 36
NOT_KEPT = math.nan  # a cold entry's volatility: only the header's, the standing a fold needs, is kept


def _packed_id(text: str, chars: int) -> bytes | None:
    if len(text) != chars:
        return None
    try:
        raw = base64.urlsafe_b64decode(text)
    except ValueError:
        return None
    return raw if base64.urlsafe_b64encode(raw).decode() == text else None


def _id_text(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode()


def cold_record(player_id: str, member: bytes, score: float) -> bytes | None:
    """The record of a stored history entry of ``player_id``; None if its ids cannot be packed."""
    change = entry_from(player_id, member, score, PlayerRating())
    opponent = _packed_id(change.opponent, _PLAYER_ID_CHARS)
    match = _packed_id(change.match_id, _MATCH_ID_CHARS)
    if opponent is None or match is None:
        return None
    after = change.after.rating
    flags = entry_flags(member)  # won, seated in A: the same bits
    return change.at.to_bytes(_TIME_BYTES, "big") + _VALUES.pack(after.value, after.rd, flags) + opponent + match


def packed_prefix(player_id: str, entries: list[tuple[bytes, float]], upto: tuple[int, str] | None) -> list[bytes]:
    """The records of the oldest of ``entries`` (stored entries, in the fold's order) up to ``upto``
    (end, match id; None: none), as far as they pack: the part of them a cold part may hold."""
    packed: list[bytes] = []
    for member, score in entries:
        inside = upto is not None and (int(score), entry_match(member)) <= upto
        record = cold_record(player_id, member, score) if inside else None
        if record is None:
            break
        packed.append(record)
    return packed


def cold_header(player_id: str, member: bytes, score: float) -> bytes:
    """The header that stands after a stored entry: the player's exact standing then."""
    after = entry_from(player_id, member, score, PlayerRating()).after
    return _HEADER.pack(after.rating.value, after.rating.rd, after.rating.volatility, after.games, after.wins)


def standing(header: bytes, last: bytes) -> PlayerRating:
    """The player's exact standing after the cold part, from its header and its last record."""
    value, rd, volatility, games, wins = _HEADER.unpack(header)
    return PlayerRating(Rating(value, rd, volatility), _record_at(last), games, wins)


def _record_at(record: bytes) -> int:
    return int.from_bytes(record[:_TIME_BYTES], "big")


def record_key(record: bytes) -> tuple[int, str]:
    """Where a record stands in the fold: (end, match id)."""
    return (_record_at(record), _id_text(record[-_MATCH_ID_CHARS * 3 // 4:]))


def records(body: bytes) -> list[bytes]:
    """The records of a cold part's body (what follows the header)."""
    return [body[at:at + RECORD_BYTES] for at in range(0, len(body) - RECORD_BYTES + 1, RECORD_BYTES)]


def _fields(record: bytes) -> tuple[int, float, float, bool, bool, str, str]:
    value, rd, flags = _VALUES.unpack_from(record, _TIME_BYTES)
    opponent_at = _TIME_BYTES + _VALUES.size
    match_at = opponent_at + _PLAYER_ID_CHARS * 3 // 4
    return (_record_at(record), value, rd, bool(flags & WON), bool(flags & SEATED_A),
            _id_text(record[opponent_at:match_at]), _id_text(record[match_at:]))


def result_of_record(player_id: str, record: bytes) -> RatedResult:
    """The result a record of ``player_id``'s records (either player's gives the same)."""
    at, _, _, won, seated_a, opponent, match_id = _fields(record)
    a, b = (player_id, opponent) if seated_a else (opponent, player_id)
    return RatedResult(at, match_id, a, b, won == seated_a)


def changes_of(player_id: str, cold: list[bytes], last: PlayerRating | None) -> list[Change]:
    """The changes the records ``cold`` (the cold part's first ones, oldest first) stand for; ``last``:
    with the whole cold part, the exact standing after it (the header's), which the last one's
    ``after`` is."""
    out: list[Change] = []
    before, wins = PlayerRating(), 0
    for position, record in enumerate(cold):
        at, value, rd, won, _, opponent, match_id = _fields(record)
        wins += int(won)
        after = (last if last is not None and position == len(cold) - 1
                 else PlayerRating(Rating(value, rd, NOT_KEPT), at, position + 1, wins))
        out.append(Change(player_id, match_id, at, before, after, opponent, won))
        before = after
    return out


def holds_match(body: bytes, match_id: str) -> bool:
    """Whether the cold part's body has a record of the match."""
    packed = _packed_id(match_id, _MATCH_ID_CHARS)
    return packed is not None and any(record.endswith(packed) for record in records(body))
