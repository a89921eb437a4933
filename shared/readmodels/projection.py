"""What the read models of one match should be, from the match as folded (pure).

No Redis here. A :class:`~shared.fold.FoldedMatch` (rules state, version, creation time
and the per-seat round tallies the scoreboard needs) becomes the three views, the lobby
summary and the players' results. The events seat players by id: their names come in
beside the match (``names``, the player directory's as it stands), so a rename or an
erasure is projected again, never recorded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from shared.eventstore.schema import iso_from_ms
from shared.fold import FoldedMatch
from shared.rules import SEATS, MatchState, Seat, view
from shared.rules.visibility import Names, views


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


def match_view(match_id: str, version: int, state: MatchState, seat: Seat | None,
               names: Names | None = None) -> dict[str, Any]:
    """The API's match view: what ``seat`` (None: a spectator) may see, with the id and version."""
    return {"id": match_id, "version": version, **view(state, seat, names=names)}


def seated_ids(state: MatchState) -> list[str]:
    """The ids of the players seated in the match (the names a view of it needs)."""
    return [player.id for player in state.players if player is not None]


def match_views(projection: FoldedMatch, names: Names | None = None) -> dict[str, dict[str, Any]]:
    """The views of seat A, seat B and a spectator."""
    shown = views(projection.state, (Seat.A, Seat.B, None), names=names)  # what all three see alike: built once
    ids = {"id": projection.match_id, "version": projection.version}
    return {audience: {**ids, **one} for audience, one in zip(("A", "B", "spectator"), shown)}


def summary(projection: FoldedMatch, spectator_view: dict[str, Any] | None = None,
            names: Names | None = None) -> dict[str, Any]:
    """The match's lobby line (what anyone may see of it)."""
    shown = spectator_view or view(projection.state, None, names=names)
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
        "rated": shown["rated"],
        "private": projection.state.private,  # unlisted: the lobby and other players' lists skip it
        "created_at": None if created_at is None else iso_from_ms(created_at),
        **({"bot_level": shown["bot_level"]} if "bot_level" in shown else {}),  # as the view: a bot match only
    }


def player_results(projection: FoldedMatch, names: Names | None = None) -> tuple[PlayerResult, ...]:
    """Each seated player's result once the match is finished; empty before, for a custom
    match (its creator chose the decks, the starting scores, a short clock or a small target:
    a practice table, never a result a player can be ranked by) and for an aborted one (a
    seat left before round 1 was complete: nothing was played to rank anyone by)."""
    state = projection.state
    if not state.ranked:
        return ()
    results = []
    for seat in SEATS:
        player = state.players[seat.index]
        if player is None:
            continue
        results.append(PlayerResult(
            player_id=player.id,
            name=(names or {}).get(player.id, ""),
            won=state.winner is seat,
            rounds_won=projection.rounds_won[seat.index],
            points_for=projection.points_won[seat.index],
            points_against=projection.points_won[seat.other.index],
        ))
    return tuple(results)


def read_models_of(projection: FoldedMatch, names: Names | None = None) -> MatchReadModels:
    """Everything the read models should hold for the projected match, its players named by ``names``."""
    views = match_views(projection, names)
    return MatchReadModels(
        version=projection.version,
        views=views,
        summary=summary(projection, views["spectator"]),
        results=player_results(projection, names),
    )
