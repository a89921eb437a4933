"""The ratings as a fold of rated results, in one deterministic order (pure).

Every rated result updates both of its players as a one-game rating period (Glicko-2 with
Lichess's parameters, :mod:`shared.ratings.glicko2`): each player's RD first grows with the
days since their last rated match, then both are rated against each other as they stood.
Results are folded in order of the match's end time, then match id (:func:`order_key`), so
the ratings depend only on which results exist, never on when a worker saw them: a result
that arrives late is folded from its place on (:func:`refold`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from shared.ratings.glicko2 import LICHESS, Parameters, Rating, aged, one_game

DAY_MS = 86_400_000
PROVISIONAL_RD = 110.0  # a rating with an RD this wide or wider is shown with a "?"


@dataclass(frozen=True, order=True)
class RatedResult:
    """One rated match's result: who played whom, who won, when it ended (epoch ms)."""

    ended_at: int
    match_id: str
    player_a: str
    player_b: str
    a_won: bool

    @property
    def key(self) -> tuple[int, str]:
        """Where the result stands in the fold."""
        return order_key(self.ended_at, self.match_id)


def order_key(ended_at: int, match_id: str) -> tuple[int, str]:
    """The fold's order: the match's end time, then its id."""
    return (ended_at, match_id)


@dataclass(frozen=True)
class PlayerRating:
    """A player's rating as of their last rated match (``at``: its end, epoch ms; None: never rated)."""

    rating: Rating = LICHESS.start
    at: int | None = None
    games: int = 0
    wins: int = 0

    @property
    def provisional(self) -> bool:
        """Whether the rating is still too uncertain to rank by."""
        return self.rating.rd >= PROVISIONAL_RD

    def aged_to(self, when: int, params: Parameters) -> Rating:
        """The rating as it stands at ``when``: RD grown with the time since ``at``."""
        if self.at is None:
            return self.rating
        return aged(self.rating, (when - self.at) / DAY_MS, params)


NEW_PLAYER = PlayerRating()


@dataclass(frozen=True)
class Change:
    """What one result did to one player (a rating-history entry)."""

    player_id: str
    match_id: str
    at: int
    before: PlayerRating
    after: PlayerRating
    opponent: str
    won: bool


def rate_result(a: PlayerRating, b: PlayerRating, result: RatedResult,
                params: Parameters = LICHESS) -> tuple[PlayerRating, PlayerRating]:
    """Both players after ``result``: each aged to its end, then rated against the other."""
    when = result.ended_at
    now_a, now_b = a.aged_to(when, params), b.aged_to(when, params)
    score_a = 1.0 if result.a_won else 0.0
    after_a = one_game(now_a, now_b, score_a, params)
    after_b = one_game(now_b, now_a, 1.0 - score_a, params)
    return (PlayerRating(after_a, when, a.games + 1, a.wins + int(result.a_won)),
            PlayerRating(after_b, when, b.games + 1, b.wins + int(not result.a_won)))


def refold(results: Iterable[RatedResult], standing: Mapping[str, PlayerRating],
           params: Parameters = LICHESS) -> Iterator[Change]:
    """The changes of ``results`` (in fold order), each player starting as ``standing`` says
    (a player not in it is new): two per result, A's then B's. ``standing`` is not modified."""
    current = dict(standing)
    for result in sorted(results, key=lambda r: r.key):
        if result.player_a == result.player_b:
            continue  # nobody is rated against themself (the pairer and the rules never seat one twice)
        a = current.get(result.player_a, NEW_PLAYER)
        b = current.get(result.player_b, NEW_PLAYER)
        after_a, after_b = rate_result(a, b, result, params)
        current[result.player_a], current[result.player_b] = after_a, after_b
        yield Change(result.player_a, result.match_id, result.ended_at, a, after_a, result.player_b, result.a_won)
        yield Change(result.player_b, result.match_id, result.ended_at, b, after_b, result.player_a, not result.a_won)


def ratings_of(results: Iterable[RatedResult], params: Parameters = LICHESS) -> dict[str, PlayerRating]:
    """Every player's rating after all ``results``, folded from nothing."""
    final: dict[str, PlayerRating] = {}
    for change in refold(results, {}, params):
        final[change.player_id] = change.after
    return final
