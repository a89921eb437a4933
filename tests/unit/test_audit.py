"""The audit names the first bad event of a tampered log."""
import dataclasses
import random

import pytest

from shared.audit import audit_events
from shared.codec import encode
from shared.eventstore import InMemoryEventStore, StoredEvent
from shared.eventstore.chain import chain_hash, genesis_hash
from shared.eventstore.port import encode_data
from shared.rules.chance import SeededChance
from shared.rules.playthrough import play_random_match


def recorded(seed: int = 3, finished: bool = True) -> list[StoredEvent]:
    _, events = play_random_match(random.Random(seed), chance=SeededChance(f"{seed:064x}"))
    if not finished:
        events = events[:-8]
    store = InMemoryEventStore()
    store.append("m", [encode(e) for e in events], 0)
    return store.read("m")


def rechain(events: list[StoredEvent]) -> list[StoredEvent]:
    """What a careful forger does: renumber and recompute every link."""
    previous, out = genesis_hash("m"), []
    for version, event in enumerate(events, 1):
        link = chain_hash(previous, version, event.type, event.schema_version, event.at, encode_data(event.data))
        out.append(dataclasses.replace(event, version=version, hash=link))
        previous = link
    return out


def first(events):
    report = audit_events("m", events)
    assert not report.ok
    return report.failures[0]


def index_of(events, event_type, nth=0):
    return [i for i, e in enumerate(events) if e.type == event_type][nth]


def test_an_honest_finished_match_passes_and_its_deals_are_recomputed_from_the_seed():
    report = audit_events("m", recorded())
    assert report.ok, report.failures
    assert any("revealed seed" in note for note in report.notes)


def test_an_unfinished_match_passes_with_its_deals_checked_for_consistency_only():
    report = audit_events("m", recorded(finished=False))
    assert report.ok and any("consistency only" in note for note in report.notes)


def test_a_changed_card_breaks_the_chain_at_that_event():
    events = recorded()
    i = index_of(events, "card_played", 3)
    events[i] = dataclasses.replace(events[i], data={**events[i].data, "card": "7H"})
    assert (first(events).version, first(events).check) == (i + 1, "chain")


def test_a_changed_card_with_a_recomputed_chain_breaks_the_rules_at_that_event():
    events = recorded()
    i = index_of(events, "card_played", 3)
    played = events[i].data["card"]
    other = next(c for c in ("7H", "8H", "9H", "7S") if c != played)
    events[i] = dataclasses.replace(events[i], data={**events[i].data, "card": other})
    finding = first(rechain(events))
    assert finding.version == i + 1 and finding.check == "rules"


@pytest.mark.parametrize("forged", [False, True])
def test_a_dropped_event_is_named(forged):
    events = recorded()
    i = index_of(events, "raise_proposed") if any(e.type == "raise_proposed" for e in events) else 5
    del events[i]
    finding = first(rechain(events) if forged else events)
    assert finding.version == i + 1


@pytest.mark.parametrize("forged", [False, True])
def test_two_reordered_events_are_named(forged):
    events = recorded()
    i = index_of(events, "card_played", 2)
    events[i], events[i + 1] = events[i + 1], events[i]
    finding = first(rechain(events) if forged else events)
    assert finding.version == i + 1


def test_an_altered_deal_is_caught_against_the_revealed_seed():
    events = recorded()
    i = index_of(events, "round_dealt", 1)
    hands = events[i].data["hands"]
    swapped = {"A": hands["B"], "B": hands["A"]}
    events[i] = dataclasses.replace(events[i], data={**events[i].data, "hands": swapped})
    finding = first(rechain(events))
    assert (finding.version, finding.check) == (i + 1, "deal")


def test_a_revealed_seed_that_does_not_match_the_commitment_fails():
    events = recorded()
    events[-1] = dataclasses.replace(events[-1], data={**events[-1].data, "seed": "00" * 32})
    finding = first(rechain(events))
    assert (finding.version, finding.check) == (len(events), "seed")


@pytest.mark.parametrize(("event_type", "change"), [
    ("round_dealt", lambda d: {**d, "stock": d["stock"][:-1] + [d["hands"]["A"][0]]}),
    ("round_dealt", lambda d: {**d, "hands": {"A": d["hands"]["A"][:1], "B": d["hands"]["B"][:1]}, "stock": []}),
    ("match_created", lambda d: {**d, "decks": [["XX"] * 32]}),
    ("match_won", lambda d: {**d, "seed": "zz"}),
    ("match_won", lambda d: {**d, "seed": None}),
])
def test_impossible_deals_creations_and_seeds_are_findings_not_crashes(event_type, change):
    events = recorded() if event_type != "round_dealt" else recorded(finished=False)
    i = index_of(events, event_type)
    events[i] = dataclasses.replace(events[i], data=change(dict(events[i].data)))
    finding = first(rechain(events))
    assert finding.version == i + 1


@pytest.mark.parametrize(("event_type", "change"), [
    ("match_created", lambda d: {**d, "match_id": "another-match"}),
    ("match_created", lambda d: {**d, "creator_id": "bad:id}"}),
    ("match_created", lambda d: {**d, "creator_name": "<img src=x onerror=alert(1)>\u202eBot"}),
    ("player_joined", lambda d: {**d, "player_id": "bad:id}"}),
    ("player_joined", lambda d: {**d, "player_name": "[bold]bob\x1b[2J"}),
    ("player_joined", lambda d: {**d, "player_name": ""}),
], ids=["another match", "creator id", "creator name", "joiner id", "joiner name", "empty name"])
def test_a_player_or_match_the_api_would_refuse_is_an_identity_finding(event_type, change):
    events = recorded()
    i = index_of(events, event_type)
    data = change(dict(events[i].data))
    named = "creator_name" in data or "player_name" in data  # a name is recorded in schema 1 only
    events[i] = dataclasses.replace(events[i], data=data, schema_version=1 if named else events[i].schema_version)
    finding = first(rechain(events))
    assert (finding.version, finding.check) == (i + 1, "identity")
