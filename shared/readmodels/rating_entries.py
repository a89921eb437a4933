"""The compact forms the ratings read model stores in Redis (pure).

Every rated match costs Redis one result (in the ordered results) and one history entry per
player, so both are short: a result is ``<match> <A> <B> <winner seat>`` scored by the end
time; a history entry is ``<match> <opponent> `` then 33 bytes (the rating, RD and
volatility after as doubles, exact, so a refold from a stored entry equals a fold from
nothing; the games and wins counts; a byte of flags: won, and seated in A), scored by the end
time too. With ids of 12
characters both fit Redis's compact small-set encoding.
"""

from __future__ import annotations

import struct

from shared.ratings.glicko2 import Rating
from shared.ratings.rating_fold import Change, PlayerRating, RatedResult

_AFTER = struct.Struct("<dddIIB")


def result_member(result: RatedResult) -> bytes:
    """The result as stored (its score is ``result.ended_at``)."""
    winner = "A" if result.a_won else "B"
    return f"{result.match_id} {result.player_a} {result.player_b} {winner}".encode()


def result_from(member: bytes, score: float) -> RatedResult:
    """The result a stored member and score hold."""
    match_id, player_a, player_b, winner = member.decode().split(" ")
    return RatedResult(int(score), match_id, player_a, player_b, winner == "A")


WON, SEATED_A = 1, 2  # the flags byte's bits (the cold records' too)


def entry_member(change: Change, seated_a: bool) -> bytes:
    """The history entry of ``change`` as stored (its score is ``change.at``)."""
    after = change.after
    flags = (WON if change.won else 0) | (SEATED_A if seated_a else 0)
    packed = _AFTER.pack(after.rating.value, after.rating.rd, after.rating.volatility, after.games, after.wins, flags)
    return f"{change.match_id} {change.opponent} ".encode() + packed


def entry_match(member: bytes) -> str:
    """The match id of a stored history entry."""
    return member.split(b" ", 1)[0].decode()


def entry_from(player_id: str, member: bytes, score: float, before: PlayerRating) -> Change:
    """The change a stored entry holds; ``before``: the player as the previous entry left them."""
    match_id, opponent, packed = member.split(b" ", 2)
    value, rd, volatility, games, wins, flags = _AFTER.unpack(packed)
    after = PlayerRating(Rating(value, rd, volatility), int(score), games, wins)
    return Change(player_id, match_id.decode(), int(score), before, after, opponent.decode(), bool(flags & WON))


def entry_flags(member: bytes) -> int:
    """The flags byte of a stored history entry (``WON``, ``SEATED_A``)."""
    return member[-1]


def result_of_entry(player_id: str, member: bytes, score: float) -> RatedResult:
    """The result a stored history entry records (either player's entry gives the same)."""
    match_id, opponent, _ = member.split(b" ", 2)
    flags = entry_flags(member)
    won, seated_a = bool(flags & WON), bool(flags & SEATED_A)
    a, b = (player_id, opponent.decode()) if seated_a else (opponent.decode(), player_id)
    return RatedResult(int(score), match_id.decode(), a, b, won == seated_a)
