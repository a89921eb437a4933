"""The benchmarks' playouts agree with the engine's, event for event, on a few hundred seeds.

``bench.player`` plans each match it sends with the engine's step: the service's use cases
(on the in-memory store, as the HTTP API runs them) record exactly the planned events at
the planned versions, and the match they keep (folded from each step's state, not evolved
again) is the one fold of its stream. ``bench.rules_engine`` measures the random playthrough: the one fold
of its events, stored at the times it played them, is the state it ended in.
"""
from __future__ import annotations

import dataclasses
import random

import pytest

from bench.player import plan_match
from services.api.app import Matches, act, create
from services.api.players import Player
from shared.codec import decode, encode
from shared.eventstore import InMemoryEventStore, StoredEvent
from shared.eventstore.port import decode_data, encode_data
from shared.fold import FoldedMatch, fold, fold_stream
from shared.rules import Seat
from shared.rules.events import MatchWon
from shared.rules.playthrough import START_MS, play_random_match
from shared.seeds import InMemorySeeds

SEEDS = range(300)
SEATED = {Seat.A: Player("a", "A"), Seat.B: Player("b", "B")}  # the players of the plan's mirror


def _served(plan) -> tuple[list, list]:
    """The plan sent to the service: every recorded event, and the version after each action."""
    service = Matches(InMemoryEventStore(), lambda match_id: None, InMemorySeeds())
    options = {"first_dealer": Seat.B, "decks": plan.decks}
    versions = [create(service, SEATED[Seat.A], options, opponent=SEATED[Seat.B], match_id="m").version]
    for seat, action, planned in plan.steps:
        if planned is None:  # past the decks: dealt from the server's seed, which the plan cannot know
            break
        versions.append(act(service, "m", SEATED[seat], action, if_match=versions[-1]).version)
    assert service.folds.get("m") == fold_stream(service.store, FoldedMatch("m"))
    return [decode(stored) for stored in service.store.read("m", after=0)], versions


def _unseeded(event):
    """An event as a match without a seed records it: the plan's mirror deals only from its decks."""
    return dataclasses.replace(event, seed=None) if isinstance(event, MatchWon) else event


@pytest.mark.parametrize("seeds", [SEEDS[i::3] for i in range(3)], ids=["a", "b", "c"])
def test_a_planned_match_is_recorded_by_the_service_as_planned(seeds):
    for seed in seeds:
        plan = plan_match(random.Random(seed))
        events, versions = _served(plan)
        assert events[0].decks == plan.decks and events[0].first_dealer is Seat.B, seed
        assert [_unseeded(e) for e in events[1:]] == list(plan.events), seed
        planned = [plan.joined_version] + [version for _, _, version in plan.steps if version is not None]
        assert versions == planned, seed


def _stored_at_their_times(seed: int):
    """A random match played by the playthrough (with timeouts and resignations on odd seeds):
    its final state, and its events stored as the service would store them, at their times."""
    options = {"timeout_rate": 0.05, "resign_weight": 0.005} if seed % 2 else {}
    batches = []
    final, events = play_random_match(
        random.Random(seed), on_step=lambda before, command, recorded, after: batches.append((after.at, recorded)),
        **options,
    )
    joined = len(events) - sum(len(recorded) for _, recorded in batches)  # the creation and the join
    stamped = [(START_MS, e) for e in events[:joined]]
    stamped += [(at, e) for at, recorded in batches for e in recorded]
    stored = [StoredEvent("m", version, new.type, new.schema_version, at, decode_data(encode_data(new.data)))
              for version, (at, new) in enumerate(((at, encode(e)) for at, e in stamped), 1)]
    return final, events, stored


@pytest.mark.parametrize("seeds", [SEEDS[i::3] for i in range(3)], ids=["a", "b", "c"])
def test_the_one_fold_of_a_playthroughs_events_is_the_state_it_played_to(seeds):
    for seed in seeds:
        final, events, stored = _stored_at_their_times(seed)
        folded = fold(FoldedMatch("m"), stored)
        assert [decode(record) for record in stored] == events, seed
        assert folded.version == len(events) and folded.state == final, seed
