"""Eight client processes race conflicting actions on the same matches through the HTTP API.

Every racer reads a version, picks a legal action and sends it with ``If-Match`` at once,
so most shots collide. Exactly one may be accepted per version; the streams must stay
gapless, hold no event twice, and the scoreboard must equal a recount from the streams.
"""

from __future__ import annotations

import multiprocessing
import time
from collections import defaultdict

import pytest

from shared.eventstore import RedisEventStore
from shared.eventstore.schema import iso_from_ms
from tests.reliability.invariants import (
    audit_failures,
    read_model_differences,
    recount,
    scoreboard_rows,
    wait_projected,
)
from tests.reliability.play import new_match, register
from tests.reliability.racers import RaceOrder, Shot, race
from tests.reliability.stack import Stack

RACERS = 8


def run_races(stack: Stack, matches: int, start_scores: list[int], seconds: float) -> tuple[dict, list[Shot]]:
    """Start ``matches`` matches and let RACERS processes fight over them; (seats, every shot)."""
    seats = {}
    for _ in range(matches):
        a, b = register(stack.http, "racer-a"), register(stack.http, "racer-b")
        seats[new_match(stack.http, a, b, start_scores=start_scores)] = {"A": a, "B": b}
    start_at = time.time() + 1.0  # every process is up by then: the first shots collide too
    orders = [RaceOrder(stack.url, seats, racer, start_at, start_at + seconds) for racer in range(RACERS)]
    with multiprocessing.get_context("fork").Pool(RACERS) as pool:
        shots = [shot for racer_shots in pool.map(race, orders) for shot in racer_shots]
    return seats, shots


def check_races(stack: Stack, seats: dict, shots: list[Shot], figures: dict) -> None:
    """Exactly one winner per version, gapless streams without duplicates, exact scoreboard."""
    client, store = stack.client(), RedisEventStore(stack.client())
    assert {shot.status for shot in shots} <= {200, 412}, [s for s in shots if s.status not in (200, 412)][:3]
    accepted: dict[str, list[Shot]] = defaultdict(list)
    tries: dict[tuple[str, int], int] = defaultdict(int)
    for shot in shots:
        tries[shot.match, shot.base] += 1
        if shot.status == 200:
            accepted[shot.match].append(shot)
    for match_id in seats:
        wins = sorted(accepted[match_id], key=lambda shot: shot.base)
        bases = [shot.base for shot in wins]
        assert len(bases) == len(set(bases)), f"{match_id}: two actions accepted on one version"
        # The accepted actions tile the stream: each one starts where the previous one ended.
        assert all(later.base == earlier.version for earlier, later in zip(wins, wins[1:])), match_id
        assert wins[-1].version == store.version(match_id), match_id
        recorded = [event for shot in wins for event in shot.events]
        stored = [(e.version, e.type, iso_from_ms(e.at)) for e in store.read(match_id, after=wins[0].base)]
        assert recorded == stored, f"{match_id}: the acknowledged events are not exactly the stream"
    assert audit_failures(client, seats) == {}
    wait_projected(client, seats)
    assert read_model_differences(client, seats) == []
    players = [player.id for seated in seats.values() for player in seated.values()]
    assert scoreboard_rows(client, players) == recount(client, seats)
    figures.update(
        racers=RACERS, matches=len(seats), shots=len(shots),
        accepted=sum(map(len, accepted.values())), refused_412=sum(s.status == 412 for s in shots),
        contested_versions=sum(count > 1 for count in tries.values()),
        finished=sum(store.read(m)[-1].type == "match_won" for m in seats), events_lost=0, duplicates=0,
    )


def test_eight_racing_processes_get_exactly_one_action_accepted_per_version(
    shared_stack: Stack, figures: dict,
) -> None:
    seats, shots = run_races(shared_stack, matches=3, start_scores=[10, 10], seconds=25)
    check_races(shared_stack, seats, shots, figures)
    assert figures["finished"] == 3 and figures["contested_versions"] > 0


@pytest.mark.soak
@pytest.mark.timeout(600)
def test_eight_racing_processes_play_whole_matches_with_one_winner_per_version(
    shared_stack: Stack, figures: dict,
) -> None:
    seats, shots = run_races(shared_stack, matches=6, start_scores=[0, 0], seconds=300)
    check_races(shared_stack, seats, shots, figures)
    assert figures["finished"] == 6
