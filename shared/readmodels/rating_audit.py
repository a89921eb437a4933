"""``truc ratings verify``: the ratings served, held against a refold of the event streams.

Every match is folded from its stream (the one fold); each finished, rated and ranked one
gives its result (:mod:`shared.readmodels.rated_results`); the results are folded from
nothing in the ratings' order, and each player's rating must equal the one served, as must
the set of results the read model holds. Nothing is written.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from shared.eventstore.port import EventStore
from shared.fold import FoldedMatch, fold_stream
from shared.ratings.rating_fold import PlayerRating, RatedResult, ratings_of
from shared.readmodels.rated_results import rated_result_of
from shared.readmodels.ratings_port import RatingsStore

TOLERANCE = 1e-9  # the fold is the same code on the same doubles: equal, but for a printed digit


@dataclass
class RatingsReport:
    """What the verification found: counts, and each difference in a sentence."""

    results: int = 0
    players: int = 0
    differences: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.differences


def results_from_streams(store: EventStore, match_ids: Iterable[str]) -> list[RatedResult]:
    """The rated result of every match that has one, folded from its stream."""
    found = []
    for match_id in match_ids:
        result = rated_result_of(fold_stream(store, FoldedMatch(match_id)))
        if result is not None:
            found.append(result)
    return found


def verify(results: list[RatedResult], served: RatingsStore) -> RatingsReport:
    """Compare the fold of ``results`` with what ``served`` holds."""
    expected = ratings_of(results)
    report = RatingsReport(results=len(results), players=len(expected))
    held = {result.match_id for result in served.results()}
    wanted = {result.match_id for result in results}
    for match_id in sorted(wanted - held):
        report.differences.append(f"match {match_id}: rated result missing from the ratings")
    for match_id in sorted(held - wanted):
        report.differences.append(f"match {match_id}: in the ratings, but no rated result in its stream")
    for player_id, rating in sorted(expected.items()):
        shown = served.rating(player_id)
        if shown is None or not _same(shown, rating):
            report.differences.append(f"player {player_id}: served {_text(shown)}, refolded {_text(rating)}")
    if served.waiting():
        report.differences.append(f"{served.waiting()} result(s) recorded but not yet folded")
    return report


def _same(one: PlayerRating, other: PlayerRating) -> bool:
    a, b = one.rating, other.rating
    return (one.games, one.wins, one.at) == (other.games, other.wins, other.at) and all(
        abs(x - y) <= TOLERANCE for x, y in ((a.value, b.value), (a.rd, b.rd), (a.volatility, b.volatility)))


def _text(rating: PlayerRating | None) -> str:
    if rating is None:
        return "nothing"
    r = rating.rating
    return f"{r.value:.4f}/{r.rd:.4f}/{r.volatility:.6f} after {rating.games} game(s)"
