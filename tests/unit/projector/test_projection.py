"""The pure projection: a fold of stored events gives the engine's views, summary and results."""

from __future__ import annotations

import dataclasses
import random

import pytest

from shared.codec import encode
from shared.eventstore.port import StoredEvent
from shared.fold import FoldedMatch, GapError, fold
from shared.readmodels.projection import player_results, read_models_of
from shared.rules import CancelReason, Seat, Status, replay, view
from shared.rules.events import MatchCancelled, RoundWon
from shared.rules.playthrough import play_random_match
from tests.projector_support import random_match


def stored(match_id: str, events: list, start_version: int = 1, at: int = 1000) -> list[StoredEvent]:
    records = []
    for offset, event in enumerate(events):
        new = encode(event)
        records.append(StoredEvent(match_id, start_version + offset, new.type, new.schema_version,
                                   at + offset, dict(new.data)))
    return records


@pytest.mark.parametrize("seed", range(20))
def test_folding_a_match_in_any_two_steps_gives_the_engine_views(seed: int) -> None:
    events = random_match(seed, "m1")
    records = stored("m1", events)
    cut = seed * 7 % len(events)
    projection = fold(fold(FoldedMatch("m1"), records[:cut]), records[cut:])
    models = read_models_of(projection)
    state = replay(events)
    assert projection.version == models.version == len(events)
    for audience, seat in (("A", Seat.A), ("B", Seat.B), ("spectator", None)):
        assert models.views[audience] == {"id": "m1", "version": len(events), **view(state, seat)}


def test_the_summary_tells_the_lobby_what_anyone_may_see() -> None:
    events = random_match(3, "m1")
    names = {"p1": "alice", "p2": "bob"}  # the player directory's: the events seat by id
    models = read_models_of(fold(FoldedMatch("m1"), stored("m1", events, at=1_767_225_600_000)), names)
    spectator = models.views["spectator"]
    assert models.summary == {
        "id": "m1", "status": "finished", "version": len(events),
        "players": {"A": {"id": "p1", "name": "alice"}, "B": {"id": "p2", "name": "bob"}},
        "scores": spectator["scores"], "winner": spectator["winner"], "rules": spectator["rules"],
        "custom": False, "rated": False, "private": False, "created_at": "2026-01-01T00:00:00.000Z",
    }


@pytest.mark.parametrize("seed", range(10))
def test_results_count_the_rounds_and_points_each_seat_won(seed: int) -> None:
    events = random_match(seed, "m1")
    results = {r.player_id: r for r in player_results(fold(FoldedMatch("m1"), stored("m1", events)))}
    rounds = [e for e in events if isinstance(e, RoundWon)]
    alice, bob = results["p1"], results["p2"]
    assert alice.rounds_won == sum(r.seat is Seat.A for r in rounds)
    assert bob.rounds_won == sum(r.seat is Seat.B for r in rounds)
    assert alice.points_for == bob.points_against == sum(r.points for r in rounds if r.seat is Seat.A)
    assert bob.points_for == alice.points_against == sum(r.points for r in rounds if r.seat is Seat.B)
    winner = replay(events).winner
    assert (alice.won, bob.won) == (winner is Seat.A, winner is Seat.B)


def test_an_unfinished_match_has_no_results_yet() -> None:
    events = random_match(1, "m1")
    projection = fold(FoldedMatch("m1"), stored("m1", events[:-1]))
    assert projection.status is not Status.FINISHED
    assert player_results(projection) == ()


def test_a_gap_in_the_versions_is_refused() -> None:
    records = stored("m1", random_match(1, "m1")[:5])
    with pytest.raises(GapError):
        fold(FoldedMatch("m1"), records[:2] + records[3:])
    with pytest.raises(GapError):
        fold(fold(FoldedMatch("m1"), records[:3]), records[2:])


def test_a_finished_custom_match_never_counts_on_the_scoreboard() -> None:
    events = random_match(3, "m1")
    created = events[0]
    assert not created.custom
    rigged = [dataclasses.replace(created, custom=True, start_scores=(0, 0)), *events[1:]]
    projection = fold(FoldedMatch("m1"), stored("m1", rigged))
    assert projection.status is Status.FINISHED and projection.state.custom
    assert player_results(projection) == ()
    assert read_models_of(projection).results == ()


def _first_match_won(reason: str, options: dict) -> list:
    """The events of the first seeded random match (played with ``options``) won for ``reason``."""
    for seed in range(50):
        _, events = play_random_match(random.Random(seed), **options)
        if events[-1].reason.value == reason:
            return events
    raise AssertionError(f"no match won for {reason!r}")


@pytest.mark.parametrize(("options", "ended_by"), [
    ({"timeout_rate": 0.3}, "abandoned"),
    ({"resign_weight": 0.05}, "resigned"),
])
def test_a_resigned_or_abandoned_match_counts_like_any_finished_one(options: dict, ended_by: str) -> None:
    events = _first_match_won(ended_by, options)
    projection = fold(FoldedMatch("m"), stored("m", events))
    results = {r.player_id: r for r in player_results(projection)}
    winner = projection.state.winner
    assert (results["p1"].won, results["p2"].won) == (winner is Seat.A, winner is Seat.B)
    assert read_models_of(projection).views["spectator"]["ended_by"] == ended_by


def test_a_cancelled_match_never_counts_on_the_scoreboard() -> None:
    created = random_match(4, "m1")[0]
    projection = fold(FoldedMatch("m1"), stored("m1", [created, MatchCancelled(CancelReason.CREATOR)]))
    models = read_models_of(projection)
    assert projection.status is Status.CANCELLED and models.results == ()
    assert models.summary["status"] == "cancelled" and models.views["A"]["ended_by"] == "cancelled"
    assert models.views["A"]["legal_actions"] == [] and models.views["A"]["clock"] is None
