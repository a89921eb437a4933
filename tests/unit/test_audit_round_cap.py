"""The audit re-derives R33's round cap like any win: an honest capped match passes, a forged
winner at the cap fails; a recorded target of 1000 and an aborted match audit as ever."""
import dataclasses

from shared.audit import audit_events
from shared.codec import encode
from shared.eventstore import InMemoryEventStore, StoredEvent
from shared.rules import CreateMatch, JoinMatch, MatchState, PlayCard, Resign, Rules, Seat, decide, replay
from shared.rules import events as ev
from shared.rules.chance import SeededChance
from tests.unit.rules.given import deck_for
from tests.unit.test_audit import rechain

SPOILING_DECK = deck_for("KS QD JS", "KH QC JH")  # every trick spoiled: a void round whoever deals


def _void_round(state: MatchState, chance: SeededChance) -> list[ev.Event]:
    recorded: list[ev.Event] = []
    for _ in range(6):
        rnd = state.round
        seat = rnd.turn
        trick = rnd.tricks[-1] if rnd.tricks and not rnd.tricks[-1].complete else None
        led = trick.cards[seat.other.index] if trick else None
        card = next(c for c in rnd.hand(seat) if led is None or c[:-1] == led[:-1])
        events = decide(state, PlayCard(seat, card), chance)
        state, recorded = replay(events, state), recorded + events
    return recorded


def played(rules: Rules, void_rounds: int, resign: bool = False) -> list[ev.Event]:
    """A match dealt from fixture decks (so the seed only commits), with ``void_rounds`` played."""
    chance = SeededChance("ab" * 32)
    create = CreateMatch("m", "p1", rules, Seat.B, None, (SPOILING_DECK,) * max(void_rounds, 1))
    events = decide(MatchState(), create, chance)
    events += decide(replay(events), JoinMatch("p2"), chance)
    for _ in range(void_rounds):
        events += _void_round(replay(events), chance)
    if resign:
        events += decide(replay(events), Resign(Seat.A), chance)
    return events


def stored(events: list[ev.Event]) -> list[StoredEvent]:
    store = InMemoryEventStore()
    store.append("m", [encode(e) for e in events], 0)
    return store.read("m")


def test_an_honest_match_ended_by_the_round_cap_passes_the_audit():
    events = played(Rules(target=1), 4)
    assert events[-1] == ev.MatchWon(Seat.B, (0, 0), "ab" * 32, ev.WinReason.ROUND_CAP)  # A dealt round 4
    report = audit_events("m", stored(events))
    assert report.ok, report.failures


def test_a_forged_winner_at_the_round_cap_is_found():
    records = stored(played(Rules(target=1), 4))
    records[-1] = dataclasses.replace(records[-1], data={**records[-1].data, "seat": "A"})
    report = audit_events("m", rechain(records))
    assert not report.ok and report.failures[0].check == "rules" and report.failures[0].version == len(records)


def test_a_match_recorded_with_a_target_of_1000_audits_and_plays_on():
    records = stored(played(Rules.from_mapping({"target": 1000}), 3, resign=True))
    report = audit_events("m", records)
    assert report.ok, report.failures
    assert records[0].data["rules"]["target"] == 1000


def test_an_aborted_match_audits_as_the_resignation_it_records():
    events = played(Rules(), 0, resign=True)
    assert replay(events).ended_by.value == "aborted"
    assert audit_events("m", stored(events)).ok


def _recorded_before_r33(events: list[ev.Event]) -> list[ev.Event]:
    """The same opening as a match recorded before R33: its match_created says no cap."""
    return [dataclasses.replace(events[0], capped=False), *events[1:]]


def test_a_match_recorded_before_r33_plays_past_the_cap_and_audits():
    chance = SeededChance("ab" * 32)
    create = CreateMatch("m", "p1", Rules(target=1), Seat.B, None, (SPOILING_DECK,) * 6)
    events = _recorded_before_r33(decide(MatchState(), create, chance))
    events += decide(replay(events), JoinMatch("p2"), chance)
    for _ in range(5):  # one past 4 x target
        events += _void_round(replay(events), chance)
    state = replay(events)
    assert state.status.value == "playing" and state.round.number == 6  # no cap: the sixth round is dealt
    report = audit_events("m", stored(events))
    assert report.ok, report.failures


def test_a_private_match_audits():
    chance = SeededChance("ab" * 32)
    create = CreateMatch("m", "p1", Rules(), Seat.B, None, (SPOILING_DECK,), private=True)
    events = decide(MatchState(), create, chance)
    events += decide(replay(events), JoinMatch("p2"), chance)
    assert events[0].private and events[0].capped
    report = audit_events("m", stored(events))
    assert report.ok, report.failures
