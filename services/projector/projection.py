"""What the read models of one match should be: a pure fold of its stored events.

No Redis here. A :class:`Projection` is the folded match (rules state, version, creation
time and the per-seat round tallies the scoreboard needs); the functions below turn it
into the three views, the lobby summary and the players' results.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from shared.codec import decode
from shared.eventstore.port import StoredEvent
from shared.eventstore.schema import iso_from_ms
from shared.rules import INITIAL, SEATS, MatchState, Seat, Status, evolve, view
from shared.rules.events import RoundWon
from shared.rules.state import copy_with, with_seat


class GapError(ValueError):
    """Stored events that do not continue the projection's version without a gap."""


@dataclass(frozen=True)
class Projection:
    """A match folded up to ``version``."""

    match_id: str
    version: int = 0
    state: MatchState = INITIAL
    created_at: int | None = None  # epoch ms of the match's first event
    rounds_won: tuple[int, int] = (0, 0)  # (A, B)
    points_won: tuple[int, int] = (0, 0)  # points of the rounds each seat won, (A, B)

    @property
    def status(self) -> Status:
        """The match's status at ``version``."""
        return self.state.status


@dataclass(frozen=True)
class PlayerResult:
    """What a finished match adds to one player's scoreboard row."""

    player_id: str
    name: str
    won: bool
    rounds_won: int
    points_for: int
    points_against: int


@dataclass(frozen=True)
class MatchReadModels:
    """Everything the read models hold for one match."""

    version: int
    views: dict[str, dict[str, Any]]  # "A", "B", "spectator"
    summary: dict[str, Any]
    results: tuple[PlayerResult, ...]  # empty until the match is finished


def advance(projection: Projection, stored: Iterable[StoredEvent]) -> Projection:
    """Fold ``stored`` (oldest first, continuing ``projection.version``) into the projection.

    Raises :class:`GapError` on a missing or repeated version, and the codec's
    ``UnknownEventError`` on an event this code cannot read.
    """
    # The fold runs on locals and builds one Projection at the end: a rebuild folds every
    # event of every match through here.
    version, state, created_at = projection.version, projection.state, projection.created_at
    rounds_won, points_won = projection.rounds_won, projection.points_won
    for record in stored:
        if record.version != version + 1:
            raise GapError(
                f"match {projection.match_id!r}: expected version {version + 1}, "
                f"got {record.version}"
            )
        event = decode(record)
        state = evolve(state, event)  # before the tally: an event the rules cannot fold counts nothing
        if isinstance(event, RoundWon):
            rounds_won, points_won = _tally(rounds_won, points_won, event)
        version = record.version
        if created_at is None:
            created_at = record.at
    if version == projection.version:
        return projection
    return copy_with(projection, version=version, state=state, created_at=created_at,
                     rounds_won=rounds_won, points_won=points_won)


def _tally(
    rounds_won: tuple[int, int], points_won: tuple[int, int], event: RoundWon,
) -> tuple[tuple[int, int], tuple[int, int]]:
    """Count the round and its points for the seat that won it (the state keeps only scores)."""
    seat = event.seat
    return (with_seat(rounds_won, seat, rounds_won[seat.index] + 1),
            with_seat(points_won, seat, points_won[seat.index] + event.points))


def match_view(match_id: str, version: int, state: MatchState, seat: Seat | None) -> dict[str, Any]:
    """The API's match view: what ``seat`` (None: a spectator) may see, with the id and version."""
    return {"id": match_id, "version": version, **view(state, seat)}


def match_views(projection: Projection) -> dict[str, dict[str, Any]]:
    """The views of seat A, seat B and a spectator."""
    p = projection
    return {
        "A": match_view(p.match_id, p.version, p.state, Seat.A),
        "B": match_view(p.match_id, p.version, p.state, Seat.B),
        "spectator": match_view(p.match_id, p.version, p.state, None),
    }


def summary(projection: Projection, spectator_view: dict[str, Any] | None = None) -> dict[str, Any]:
    """The match's lobby line (what anyone may see of it)."""
    shown = spectator_view or view(projection.state, None)
    created_at = projection.created_at
    return {
        "id": projection.match_id,
        "status": shown["status"],
        "version": projection.version,
        "players": shown["players"],
        "scores": shown["scores"],
        "winner": shown["winner"],
        "rules": shown["rules"],
        "custom": shown["custom"],
        "created_at": None if created_at is None else iso_from_ms(created_at),
    }


def player_results(projection: Projection) -> tuple[PlayerResult, ...]:
    """Each seated player's result once the match is finished; empty before."""
    state = projection.state
    if state.status is not Status.FINISHED:
        return ()
    results = []
    for seat in SEATS:
        player = state.players[seat.index]
        if player is None:
            continue
        results.append(PlayerResult(
            player_id=player.id,
            name=player.name,
            won=state.winner is seat,
            rounds_won=projection.rounds_won[seat.index],
            points_for=projection.points_won[seat.index],
            points_against=projection.points_won[seat.other.index],
        ))
    return tuple(results)


def read_models_of(projection: Projection) -> MatchReadModels:
    """Everything the read models should hold for the projected match."""
    views = match_views(projection)
    return MatchReadModels(
        version=projection.version,
        views=views,
        summary=summary(projection, views["spectator"]),
        results=player_results(projection),
    )
