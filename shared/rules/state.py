"""Immutable match state, folded from events by ``evolve``."""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar

from .variants import Rules


class Seat(StrEnum):
    A = "A"
    B = "B"

    # Plain attributes of each member, set below: every step reads them many times, and a
    # property call costs more than the rest of the lookup.
    other: Seat  # the opponent's seat
    index: int  # 0 for A, 1 for B: the seat's place in per-seat pairs


SEATS = (Seat.A, Seat.B)
for _seat, _other, _index in ((Seat.A, Seat.B, 0), (Seat.B, Seat.A, 1)):
    _seat.__dict__.update(other=_other, index=_index)


class Status(StrEnum):
    NEW = "new"  # nothing recorded yet
    WAITING = "waiting"
    PLAYING = "playing"
    FINISHED = "finished"
    CANCELLED = "cancelled"  # closed before a second player joined (R32)

    over: bool  # finished or cancelled: nothing more can happen in the match (set below, as Seat's)


for _status in Status:
    _status.__dict__["over"] = _status is Status.FINISHED or _status is Status.CANCELLED


class QuestionKind(StrEnum):
    RAISE = "raise"
    REMAINDER = "remainder"
    REDEAL = "redeal"


class RoundEnd(StrEnum):
    """Why a round ended."""

    TRICKS = "tricks"
    RAISE_REJECTED = "raise_rejected"
    REMAINDER_REJECTED = "remainder_rejected"
    FOLD = "fold"
    ALL_SPOILED = "all_spoiled"


class WinReason(StrEnum):
    """Why a match was won (``match_won``'s reason)."""

    SCORE = "score"  # a seat reached the target (R24)
    RESIGNED = "resigned"  # the opponent resigned (R31)
    ABANDONED = "abandoned"  # the opponent timed out twice in a row (R30)
    ROUND_CAP = "round_cap"  # 4 x target rounds were played: the higher score, else the last non-dealer (R33)


class CancelReason(StrEnum):
    """Why a waiting match was cancelled (``match_cancelled``'s reason, R32)."""

    CREATOR = "creator"
    EXPIRED = "expired"


class Ending(StrEnum):
    """How a match ended, as its views say (``ended_by``): a win's reason or a cancellation's.

    ``ABORTED`` is no recorded reason: the fold says it of a match resigned or abandoned
    before round 1 was complete, so matches recorded before the rule existed read alike.
    """

    SCORE = "score"
    RESIGNED = "resigned"
    ABANDONED = "abandoned"
    ROUND_CAP = "round_cap"  # R33
    ABORTED = "aborted"  # resigned or abandoned before round 1 was complete: a loss, but no result
    CANCELLED = "cancelled"  # by its creator
    EXPIRED = "expired"  # nobody joined in time


_Frozen = TypeVar("_Frozen")
_set_attribute = object.__setattr__  # sets a frozen instance's whole ``__dict__``, as copies do


def copy_with(original: _Frozen, /, **changes: object) -> _Frozen:
    """``dataclasses.replace`` for the engine's frozen dataclasses, without its per-call work.

    Folding calls this for every event; ``replace`` re-reads the class's fields and runs
    ``__init__`` each time. These classes have no ``__post_init__`` and no init-only fields,
    so a copy of the instance's attributes with ``changes`` applied is the same value.
    """
    kind = type(original)
    attributes = original.__dict__.copy()
    attributes.update(changes)
    if len(attributes) != len(original.__dict__):  # a name that is no field added an attribute
        raise TypeError(f"{kind.__name__} has no field(s) {sorted(changes.keys() - kind.__dataclass_fields__.keys())}")
    copy = object.__new__(kind)
    _set_attribute(copy, "__dict__", attributes)  # frozen: its own __setattr__ refuses
    return copy


def with_seat(pair: tuple, seat: Seat, value: object) -> tuple:
    """A copy of a per-seat pair with ``seat``'s entry replaced."""
    return (value, pair[1]) if seat is Seat.A else (pair[0], value)


@dataclass(frozen=True)
class Player:
    """Who holds a seat: an id. Names are the player directory's, served beside the id, so a
    rename or an erasure changes no recorded event."""

    id: str


@dataclass(frozen=True)
class Question:
    """A pending raise, remainder or redeal proposal, waiting for the other seat's answer."""

    kind: QuestionKind
    by: Seat
    value: int


@dataclass(frozen=True)
class Trick:
    leader: Seat
    cards: tuple[str | None, str | None] = (None, None)
    winner: Seat | None = None
    spoiled: bool = False

    @property
    def complete(self) -> bool:
        return None not in self.cards


@dataclass(frozen=True)
class RoundState:
    number: int
    dealer: Seat
    hands: tuple[tuple[str, ...], tuple[str, ...]]
    stock: tuple[str, ...]
    value: int = 1
    pending: Question | None = None
    remainder_round: bool = False
    last_accepted_by: Seat | None = None  # who made the last accepted request (R11-iii)
    requested_this_turn: bool = False  # the seat on turn already made its one request
    redeal_open: bool = True  # R8's window
    tricks: tuple[Trick, ...] = ()
    discarded: tuple[str, ...] = ()  # hands thrown away by an accepted redeal

    @property
    def non_dealer(self) -> Seat:
        return self.dealer.other

    @property
    def turn(self) -> Seat:
        """Who plays next: N leads first (R7), a trick's winner or a spoiled trick's leader next (R10)."""
        if not self.tricks:
            return self.non_dealer
        last = self.tricks[-1]
        if not last.complete:
            return last.leader.other
        return last.winner or last.leader

    def hand(self, seat: Seat) -> tuple[str, ...]:
        return self.hands[seat.index]


@dataclass(frozen=True)
class RoundSummary:
    """How a finished round ended, kept for the view's ``last_round``."""

    number: int
    dealer: Seat
    value: int
    winner: Seat | None
    points: int
    reason: RoundEnd
    tricks: tuple[Trick, ...]


@dataclass(frozen=True)
class MatchState:
    match_id: str = ""
    status: Status = Status.NEW
    rules: Rules = Rules()
    players: tuple[Player | None, Player | None] = (None, None)
    scores: tuple[int, int] = (0, 0)
    first_dealer: Seat = Seat.B
    decks: tuple[tuple[str, ...], ...] = ()  # fixture deck orders for rounds 1, 2, ...
    custom: bool = False
    private: bool = False  # unlisted, and hidden from all but its creator until someone joins
    capped: bool = False  # R33's round cap applies (recorded by match_created since R33)
    bot_level: str | None = None  # the built-in bot's level in a match against it (match_created, schema 2)
    rated: bool = False  # created rated (recorded by match_created since schema 2): its result moves ratings
    round: RoundState | None = None
    rounds_dealt: int = 0
    last_round: RoundSummary | None = None
    winner: Seat | None = None
    seed_commitment: str | None = None  # proves the shuffled deals once ``seed`` is revealed
    seed: str | None = None
    ended_by: Ending | None = None
    # The clock (R28-R30). ``at``: epoch ms of the latest event, set by ``clock.clocked`` (the
    # events themselves carry no time). ``timeouts``: each seat's timeouts since its last action
    # of its own; ``defaulting``: the seat whose timeout's default decision is the next event.
    at: int | None = None
    timeouts: tuple[int, int] = (0, 0)
    defaulting: Seat | None = None

    def score(self, seat: Seat) -> int:
        return self.scores[seat.index]

    @property
    def ranked(self) -> bool:
        """Whether the match ended in a result a player may be ranked (or rated) by: finished,
        on terms nobody chose for the other (not custom), and played past round 1 (not aborted)."""
        return self.status is Status.FINISHED and not self.custom and self.ended_by is not Ending.ABORTED

    @property
    def rated_result(self) -> bool:
        """Whether the match ended in a result that moves its players' ratings: created rated, and
        ranked (never custom, cancelled or aborted, whatever was recorded of it)."""
        return self.rated and self.ranked

    @property
    def invite_only(self) -> bool:
        """A private match nobody has joined yet: only its creator (and the invite) may reach it."""
        return self.private and self.players[1] is None

    def seat_of(self, player_id: str) -> Seat | None:
        for seat in SEATS:
            player = self.players[seat.index]
            if player is not None and player.id == player_id:
                return seat
        return None

    def with_round(self, **changes: object) -> MatchState:
        assert self.round is not None
        attributes = self.__dict__.copy()  # copy_with(self, round=...), inlined: on every step
        attributes["round"] = copy_with(self.round, **changes)
        copy = object.__new__(MatchState)
        _set_attribute(copy, "__dict__", attributes)
        return copy


INITIAL = MatchState()
