"""Events: facts in the past tense. Derived outcomes (tricks, rounds, the match) are events too."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .state import CancelReason, RoundEnd, Seat, WinReason
from .variants import Rules

Hands = tuple[tuple[str, ...], tuple[str, ...]]  # (A's cards, B's cards)


@dataclass(frozen=True)
class Event:
    type: ClassVar[str] = ""


@dataclass(frozen=True)
class MatchCreated(Event):
    match_id: str
    creator_id: str  # the creator's name is the player directory's (schema 1 recorded it here)
    rules: Rules
    first_dealer: Seat
    start_scores: tuple[int, int]
    decks: tuple[tuple[str, ...], ...]
    custom: bool
    seed_commitment: str | None = None  # SHA-256 of the secret seed the deals derive from
    private: bool = False  # unlisted (added later: older events read as public); the invite is never recorded
    capped: bool = False  # R33's round cap applies: every match created since R33 (older ones never had one)
    rated: bool = False  # counts for the players' ratings (schema 1: never)
    bot_level: str | None = None  # the built-in bot's level in a match against it; None: no bot seated at creation
    type: ClassVar[str] = "match_created"


@dataclass(frozen=True)
class PlayerJoined(Event):
    seat: Seat
    player_id: str  # the name is the player directory's (schema 1 recorded it here)
    type: ClassVar[str] = "player_joined"


@dataclass(frozen=True)
class RoundDealt(Event):
    round: int
    dealer: Seat
    hands: Hands
    stock: tuple[str, ...]
    type: ClassVar[str] = "round_dealt"


@dataclass(frozen=True)
class RedealProposed(Event):
    seat: Seat
    type: ClassVar[str] = "redeal_proposed"


@dataclass(frozen=True)
class RedealAccepted(Event):
    seat: Seat  # who accepted
    hands: Hands  # the new hands, taken from the stock
    type: ClassVar[str] = "redeal_accepted"


@dataclass(frozen=True)
class RedealRejected(Event):
    seat: Seat
    type: ClassVar[str] = "redeal_rejected"


@dataclass(frozen=True)
class CardPlayed(Event):
    seat: Seat
    card: str
    type: ClassVar[str] = "card_played"


@dataclass(frozen=True)
class TrickWon(Event):
    trick: int  # 1, 2 or 3
    seat: Seat
    type: ClassVar[str] = "trick_won"


@dataclass(frozen=True)
class TrickSpoiled(Event):
    trick: int
    type: ClassVar[str] = "trick_spoiled"


@dataclass(frozen=True)
class RaiseProposed(Event):
    seat: Seat
    value: int  # the value proposed, next(v)
    type: ClassVar[str] = "raise_proposed"


@dataclass(frozen=True)
class RaiseAccepted(Event):
    seat: Seat  # who accepted
    value: int  # the round's new value
    type: ClassVar[str] = "raise_accepted"


@dataclass(frozen=True)
class RaiseRejected(Event):
    seat: Seat
    type: ClassVar[str] = "raise_rejected"


@dataclass(frozen=True)
class RemainderDeclared(Event):
    seat: Seat
    type: ClassVar[str] = "remainder_declared"


@dataclass(frozen=True)
class RemainderAccepted(Event):
    seat: Seat
    type: ClassVar[str] = "remainder_accepted"


@dataclass(frozen=True)
class RemainderRejected(Event):
    seat: Seat
    type: ClassVar[str] = "remainder_rejected"


@dataclass(frozen=True)
class Folded(Event):
    seat: Seat
    type: ClassVar[str] = "folded"


@dataclass(frozen=True)
class RoundWon(Event):
    round: int
    seat: Seat
    points: int  # added to the winner's score (a remainder result lifts it to the target)
    reason: RoundEnd
    scores: tuple[int, int]  # after the points
    type: ClassVar[str] = "round_won"


@dataclass(frozen=True)
class RoundVoid(Event):
    round: int
    type: ClassVar[str] = "round_void"


@dataclass(frozen=True)
class MatchWon(Event):
    seat: Seat
    scores: tuple[int, int]
    seed: str | None = None  # the seed behind every shuffled deal, revealed at the end
    reason: WinReason = WinReason.SCORE  # recorded since R30-R31; older events were all won on score
    type: ClassVar[str] = "match_won"


@dataclass(frozen=True)
class TurnTimedOut(Event):
    """R29: ``seat`` owed a decision and let its deadline pass; its default decision follows
    (or, the second time in a row, ``match_won`` for the opponent, R30)."""

    seat: Seat
    deadline: int  # epoch ms: the deadline that passed
    type: ClassVar[str] = "turn_timed_out"


@dataclass(frozen=True)
class MatchCancelled(Event):
    """R32: a waiting match closed, by its creator or because nobody joined in time."""

    reason: CancelReason
    type: ClassVar[str] = "match_cancelled"


EVENT_TYPES: dict[str, type[Event]] = {
    kind.type: kind
    for kind in (
        MatchCreated, PlayerJoined, RoundDealt, RedealProposed, RedealAccepted, RedealRejected,
        CardPlayed, TrickWon, TrickSpoiled, RaiseProposed, RaiseAccepted, RaiseRejected,
        RemainderDeclared, RemainderAccepted, RemainderRejected, Folded, RoundWon, RoundVoid,
        MatchWon, TurnTimedOut, MatchCancelled,
    )
}
