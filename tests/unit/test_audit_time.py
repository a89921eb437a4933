"""The audit re-decides the service's own commands too: timeouts against the recorded times,
abandonment, resignations, cancellations and lobby expiry.

Each match is decided command by command and stored batch by batch at the time given, as
the service stores it: the store computes every hash, so a forged batch is what a careful
forger would leave behind, and only the rules and the clock can catch it.
"""
from __future__ import annotations

import random

import pytest

from shared.audit import audit_events
from shared.codec import encode
from shared.eventstore import InMemoryEventStore, StoredEvent
from shared.rules import (
    INITIAL,
    Cancel,
    CancelReason,
    CreateMatch,
    ExpireLobby,
    Fold,
    JoinMatch,
    PlayCard,
    Raise,
    Resign,
    Rules,
    Seat,
    TimeOut,
    WinReason,
    clocked,
    deadline,
    decide,
    evolve,
    legal_actions,
    owes,
    replay,
)
from shared.rules import events as ev
from shared.rules.chance import SeededChance
from shared.rules.playthrough import START_MS, play_random_match

T0 = 1_700_000_000_000
STEP = 1_000
RULES = Rules(turn_seconds=30)


class Timed:
    """A match decided command by command; each batch of events is stored at its own time."""

    def __init__(self, seed: int = 5, join: bool = True) -> None:
        self.chance = SeededChance(f"{seed:064x}")
        self.state, self.batches, self.now = INITIAL, [], T0
        self.record(CreateMatch("m", "p1", RULES), T0)
        if join:
            self.later(JoinMatch("p2"))

    def record(self, command, at: int, events: list[ev.Event] | None = None) -> list[ev.Event]:
        """Store ``events`` (default: what ``decide`` says for ``command``) at ``at``."""
        events = decide(self.state, command, self.chance) if events is None else events
        self.batches.append((at, events))
        self.state, self.now = clocked(replay(events, self.state), at), at
        return events

    def later(self, command) -> list[ev.Event]:
        return self.record(command, self.now + STEP)

    def time_out(self, stored_at: int | None = None) -> list[ev.Event]:
        """The seat that owes times out at its deadline (stored at ``stored_at`` if given)."""
        due = deadline(self.state)
        return self.record(TimeOut(owes(self.state), due), due if stored_at is None else stored_at)

    def play_a_card(self) -> None:
        seat = owes(self.state)
        self.later(next(a for a in legal_actions(self.state, seat) if isinstance(a, PlayCard)))

    def stored(self) -> list[StoredEvent]:
        clock = {"now": 0}
        store = InMemoryEventStore(clock=lambda: clock["now"])
        for at, events in self.batches:
            clock["now"] = at
            store.append("m", [encode(e) for e in events], len(store.read("m")))
        return store.read("m")


def passes(stored: list[StoredEvent], **options) -> None:
    report = audit_events("m", stored, **options)
    assert report.ok, report.failures


def first(stored: list[StoredEvent], **options):
    report = audit_events("m", stored, **options)
    assert not report.ok
    return report.failures[0]


def version_of(stored: list[StoredEvent], event_type: str, nth: int = 0) -> int:
    return [e.version for e in stored if e.type == event_type][nth]


def test_a_genuine_timeout_at_its_deadline_passes_with_its_default_fold():
    match = Timed()
    events = match.time_out()

    assert isinstance(events[1], ev.Folded)
    passes(match.stored())


def test_a_timeout_long_after_its_deadline_passes():
    match = Timed()
    match.time_out(stored_at=deadline(match.state) + 3_600_000)

    passes(match.stored())


def test_a_timeout_recorded_before_its_deadline_fails_on_time():
    match = Timed()
    match.time_out(stored_at=deadline(match.state) - 1)
    stored = match.stored()

    finding = first(stored)
    assert (finding.version, finding.check) == (version_of(stored, "turn_timed_out"), "time")
    assert "before" in finding.message and "deadline" in finding.message


def test_a_timeout_naming_another_deadline_fails_on_time():
    match = Timed()
    due, seat = deadline(match.state), owes(match.state)
    genuine = decide(match.state, TimeOut(seat, due), match.chance)
    match.record(None, due, [ev.TurnTimedOut(seat, due - 5_000), *genuine[1:]])
    stored = match.stored()

    finding = first(stored)
    assert (finding.version, finding.check) == (version_of(stored, "turn_timed_out"), "time")


def test_a_timeout_of_the_seat_that_owes_nothing_is_refused():
    match = Timed()
    due, seat = deadline(match.state), owes(match.state)
    timed_out = ev.TurnTimedOut(seat.other, due)
    match.record(None, due, [timed_out, *decide(evolve(match.state, timed_out), Fold(seat.other), match.chance)])
    stored = match.stored()

    finding = first(stored)
    assert finding.version == version_of(stored, "turn_timed_out") and "NOT_DUE" in finding.message


def test_a_timeout_answering_a_raise_rejects_it():
    match = Timed()
    match.later(Raise(owes(match.state)))
    events = match.time_out()

    assert isinstance(events[1], ev.RaiseRejected)
    passes(match.stored())


def test_a_forged_default_decision_fails_where_it_differs():
    match = Timed()
    match.later(Raise(owes(match.state)))  # the default decision of the seat asked is to reject
    due, seat = deadline(match.state), owes(match.state)
    timed_out = ev.TurnTimedOut(seat, due)
    folded = decide(evolve(match.state, timed_out), Fold(seat), match.chance)  # legal, but not the default
    match.record(None, due, [timed_out, *folded])
    stored = match.stored()

    finding = first(stored)
    assert (finding.version, finding.check) == (version_of(stored, "folded"), "rules")
    assert "raise_rejected" in finding.message


def abandoned(match: Timed) -> Seat:
    """The seat on turn lets its clock run out twice in a row; the other seat keeps playing."""
    seat = owes(match.state)
    timeouts = 0
    while not match.state.status.over:
        if owes(match.state) is seat:
            match.time_out()
            timeouts += 1
        else:
            match.play_a_card()
    assert timeouts == 2
    return seat


def test_an_abandonment_after_two_timeouts_in_a_row_passes():
    match = Timed()
    seat = abandoned(match)

    last = match.batches[-1][1]
    assert [type(e) for e in last] == [ev.TurnTimedOut, ev.MatchWon]
    assert last[1].seat is seat.other and last[1].reason is WinReason.ABANDONED
    passes(match.stored())


def test_an_abandonment_after_a_single_timeout_fails():
    match = Timed()
    due, seat = deadline(match.state), owes(match.state)
    forged = [ev.TurnTimedOut(seat, due), ev.MatchWon(seat.other, (0, 0), match.chance.seed, WinReason.ABANDONED)]
    match.record(None, due, forged)
    stored = match.stored()

    finding = first(stored)
    assert (finding.version, finding.check) == (version_of(stored, "match_won"), "rules")


def test_a_move_between_two_timeouts_saves_the_seat_from_abandonment():
    match = Timed()
    seat = owes(match.state)
    match.time_out()  # folds: a new round is dealt
    while owes(match.state) is not seat:
        match.play_a_card()
    match.play_a_card()  # an action of its own
    while owes(match.state) is not seat:
        match.play_a_card()
    events = match.time_out()

    assert not any(isinstance(e, ev.MatchWon) for e in events)
    passes(match.stored())


def test_a_resignation_passes_and_a_forged_one_fails():
    match = Timed()
    match.later(Resign(Seat.B))
    passes(match.stored())

    forged = Timed()
    forged.record(None, forged.now + STEP,
                  [ev.MatchWon(Seat.B, (0, 0), forged.chance.seed, WinReason.ABANDONED)])  # nobody timed out
    assert first(forged.stored()).check == "rules"


def test_a_cancellation_by_the_creator_passes_while_the_match_waits():
    match = Timed(join=False)
    match.later(Cancel(Seat.A))

    report = audit_events("m", match.stored())
    assert report.ok, report.failures
    assert any("nothing was dealt" in note for note in report.notes)


def test_a_cancellation_after_the_join_fails():
    match = Timed()
    match.record(None, match.now + STEP, [ev.MatchCancelled(CancelReason.CREATOR)])
    stored = match.stored()

    finding = first(stored)
    assert finding.version == len(stored) and "MATCH_STARTED" in finding.message


def test_an_expiry_passes_and_without_the_setting_says_what_was_not_checked():
    match = Timed(join=False)
    match.record(ExpireLobby(T0 + 3_600_000, 3600), T0 + 3_600_000)

    report = audit_events("m", match.stored())
    assert report.ok, report.failures
    assert any("LOBBY_SECONDS is not recorded" in note for note in report.notes)
    passes(match.stored(), lobby_seconds=3600)


def test_an_expiry_before_the_lobby_time_fails_only_against_the_setting():
    match = Timed(join=False)
    match.record(None, T0 + 60_000, [ev.MatchCancelled(CancelReason.EXPIRED)])
    stored = match.stored()

    passes(stored)  # the log alone cannot say how long the lobby waits
    finding = first(stored, lobby_seconds=3600)
    assert (finding.version, finding.check) == (2, "rules") and "NOT_DUE" in finding.message


@pytest.mark.parametrize("at", [T0 - 1, T0 + 60_000], ids=["before-creation", "after-the-join"])
def test_an_expiry_recorded_before_the_creation_or_once_the_match_started_fails(at):
    match = Timed(join=at > T0)
    match.record(None, at, [ev.MatchCancelled(CancelReason.EXPIRED)])

    assert first(match.stored()).check == "rules"


def timed_random_match(seed: int) -> Timed:
    """A random match with timeouts and resignations, each batch stored at the time it was decided."""
    batches: list[tuple[int, list[ev.Event]]] = []
    _, events = play_random_match(
        random.Random(seed), rules=RULES, chance=SeededChance(f"{seed:064x}"), timeout_rate=0.2,
        resign_weight=0.02, on_step=lambda before, command, recorded, after: batches.append((after.at, recorded)),
    )
    match = Timed.__new__(Timed)
    match.batches = [(START_MS, events[:len(events) - sum(len(b) for _, b in batches)]), *batches]
    return match


def test_random_matches_with_timeouts_abandonments_and_resignations_pass():
    endings = set()
    for seed in range(40):
        match = timed_random_match(seed)
        passes(match.stored())
        endings.add(match.batches[-1][1][-1].reason)
    assert endings >= {WinReason.ABANDONED, WinReason.RESIGNED}
