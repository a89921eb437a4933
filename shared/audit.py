"""Audit one match's recorded events: gapless, chained, lawful and fairly dealt.

``audit_events`` needs nothing but the events: it checks that versions run 1..n, that
every hash-chain link is intact, that the match created is this match and every player
seated has an id and a name the API could have given (:mod:`shared.identity`), and that
replaying the recorded *player actions* through ``decide`` yields exactly the recorded
events — derived outcomes and deals included. Once a match is won its seed is revealed,
so every shuffled deal is recomputed from the seed and the seed is checked against the
commitment recorded at creation. Before that, deals can only be checked for consistency.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from shared.codec import UnknownEventError, decode
from shared.eventstore.chain import chain_hash, genesis_hash
from shared.eventstore.port import StoredEvent, encode_data
from shared.identity import validate_player_id, validate_player_name
from shared.rules import DECK, INITIAL, Command, Event, RuleError, Seat, decide, replay
from shared.rules import commands as cmd
from shared.rules import events as ev
from shared.rules.chance import Chance, SeededChance, fits_commitment


@dataclass(frozen=True)
class Finding:
    version: int
    check: str  # versions | chain | identity | rules | deal | seed | read_models
    message: str


@dataclass
class AuditReport:
    match_id: str
    events: int
    failures: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def fail(self, version: int, check: str, message: str) -> None:
        self.failures.append(Finding(version, check, message))


def audit_events(match_id: str, stored: Sequence[StoredEvent]) -> AuditReport:
    """Every check that needs only the event log, in order; the report names the first bad event."""
    report = AuditReport(match_id, len(stored))
    _check_versions(stored, report)
    _check_chain(match_id, stored, report)
    if report.ok:
        _check_rules(stored, report)
    return report


def _check_versions(stored: Sequence[StoredEvent], report: AuditReport) -> None:
    for expected, event in enumerate(stored, 1):
        if event.version != expected:
            report.fail(expected, "versions", f"version {expected} is missing or out of place (found {event.version})")
            return


def _check_chain(match_id: str, stored: Sequence[StoredEvent], report: AuditReport) -> None:
    previous = genesis_hash(match_id)
    for event in stored:
        link = chain_hash(previous, event.version, event.type, event.schema_version, event.at, encode_data(event.data))
        if event.hash != link:
            report.fail(event.version, "chain", f"{event.type} does not match its hash: changed, moved or inserted")
            return
        previous = link


class RecordedChance:
    """The deals as recorded: lets an unfinished match be checked for consistency."""

    def __init__(self, events: Sequence[Event]) -> None:
        self._decks = {e.round: _deck_of(e) for e in events if isinstance(e, ev.RoundDealt)}
        created = next((e for e in events if isinstance(e, ev.MatchCreated)), None)
        self._commitment = created.seed_commitment if created else None

    def deck(self, round_number: int) -> tuple[str, ...]:
        return self._decks.get(round_number, ())

    def first_dealer(self) -> Seat:
        return Seat.B

    @property
    def commitment(self) -> str | None:
        return self._commitment

    def reveal(self) -> str | None:
        return None


def _deck_of(dealt: ev.RoundDealt) -> tuple[str, ...]:
    """The deck order a recorded deal came from (R6 in reverse)."""
    non_dealer, dealer = dealt.hands[dealt.dealer.other.index], dealt.hands[dealt.dealer.index]
    return tuple(card for pair in zip(non_dealer, dealer) for card in pair) + dealt.stock


def _check_rules(stored: Sequence[StoredEvent], report: AuditReport) -> None:
    events = []
    for record in stored:
        try:
            events.append(decode(record))
        except UnknownEventError as error:
            report.fail(record.version, "rules", str(error))
            return
    if not _check_identities(report.match_id, stored, events, report):
        return
    if not _check_deals(stored, events, report):
        return
    chance = _chance(stored, events, report)
    if chance is None:
        return
    state, i = INITIAL, 0
    while i < len(events):
        command = command_of(events[i])
        if command is None:
            report.fail(stored[i].version, "rules", f"{events[i].type} is not a player action at this point")
            return
        try:
            expected = decide(state, command, chance)
        except RuleError as refusal:
            report.fail(stored[i].version, "rules", f"{events[i].type} was illegal here: {refusal.code.value}")
            return
        except ValueError as error:  # SetupError included: a creation no service would accept
            report.fail(stored[i].version, "rules", f"{events[i].type} cannot be replayed: {error}")
            return
        found = events[i:i + len(expected)]
        for offset, (want, got) in enumerate(zip(expected, found + [None] * len(expected))):
            if want != got:
                kind = "deal" if isinstance(want, ev.RoundDealt) and isinstance(chance, SeededChance) else "rules"
                version = stored[i + offset].version if i + offset < len(stored) else len(stored) + 1
                report.fail(version, kind, f"the rules derive {want.type} {_brief(want)}, the log has "
                                           f"{getattr(got, 'type', 'nothing')} {_brief(got)}")
                return
        state, i = replay(expected, state), i + len(expected)


def _chance(stored: Sequence[StoredEvent], events: Sequence[Event], report: AuditReport) -> Chance | None:
    created = events[0] if events and isinstance(events[0], ev.MatchCreated) else None
    won = events[-1] if events and isinstance(events[-1], ev.MatchWon) else None
    if created is not None and created.decks:
        report.notes.append(f"custom match: rounds 1-{len(created.decks)} were dealt from given decks")
    if won is None:
        report.notes.append("deals checked for consistency only: the seed is revealed when the match is won")
        return RecordedChance(events)
    committed = created.seed_commitment if created else None
    if won.seed is None and committed is None:
        report.notes.append("no seed was committed: deals checked for consistency only")
        return RecordedChance(events)
    if not fits_commitment(won.seed, committed):
        report.fail(stored[-1].version, "seed", "the revealed seed does not match the commitment made at creation")
        return None
    report.notes.append("every shuffled deal recomputed from the revealed seed")
    return SeededChance(won.seed)


_DECK = frozenset(DECK)


def _check_identities(match_id: str, stored: Sequence[StoredEvent], events: Sequence[Event],
                      report: AuditReport) -> bool:
    """The match created is ``match_id``, and each player seated has an id and a name the API accepts."""
    for record, event in zip(stored, events):
        if isinstance(event, ev.MatchCreated):
            if event.match_id != match_id:
                report.fail(record.version, "identity", f"{event.type} creates another match: {event.match_id!r}")
                return False
            seated = (event.creator_id, event.creator_name)
        elif isinstance(event, ev.PlayerJoined):
            seated = (event.player_id, event.player_name)
        else:
            continue
        try:
            validate_player_id(seated[0])
            validate_player_name(seated[1])
        except ValueError as error:
            report.fail(record.version, "identity", f"{event.type} seats a player the API would refuse: {error}")
            return False
    return True


def _check_deals(stored: Sequence[StoredEvent], events: Sequence[Event], report: AuditReport) -> bool:
    """Every recorded deal deals 3 cards each from the 32, and the stock holds the other 26."""
    for record, event in zip(stored, events):
        if isinstance(event, ev.RoundDealt):
            hands_ok = [len(hand) for hand in event.hands] == [3, 3] and len(event.stock) == 26
            cards = [*event.hands[0], *event.hands[1], *event.stock]
        elif isinstance(event, ev.RedealAccepted):
            hands_ok = [len(hand) for hand in event.hands] == [3, 3]
            cards = [*event.hands[0], *event.hands[1]]
        else:
            continue
        if not hands_ok or len(set(cards)) != len(cards) or not _DECK.issuperset(cards):
            report.fail(record.version, "deal", f"{event.type} is not a deal of the 32 cards (3 each, 26 in stock)")
            return False
    return True


def command_of(event: Event) -> Command | None:
    """The player action (or seating) a recorded event is the first fact of; None if derived."""
    if isinstance(event, ev.MatchCreated):
        start = event.start_scores if event.custom and (not event.decks or event.start_scores != (0, 0)) else None
        return cmd.CreateMatch(event.match_id, event.creator_id, event.creator_name, event.rules,
                               event.first_dealer, start, event.decks)
    if isinstance(event, ev.PlayerJoined):
        return cmd.JoinMatch(event.player_id, event.player_name)
    if isinstance(event, ev.CardPlayed):
        return cmd.PlayCard(event.seat, event.card)
    action = _ACTIONS.get(type(event))
    return None if action is None else action(event.seat)


_ACTIONS: dict[type, type[cmd.PlayerAction]] = {
    ev.RedealProposed: cmd.ProposeRedeal, ev.RaiseProposed: cmd.Raise, ev.RemainderDeclared: cmd.DeclareRemainder,
    ev.RedealAccepted: cmd.Accept, ev.RaiseAccepted: cmd.Accept, ev.RemainderAccepted: cmd.Accept,
    ev.RedealRejected: cmd.Reject, ev.RaiseRejected: cmd.Reject, ev.RemainderRejected: cmd.Reject,
    ev.Folded: cmd.Fold,
}


def _brief(event: Event | None) -> str:
    if event is None:
        return ""
    fields = {k: v for k, v in vars(event).items() if k not in ("stock", "decks", "rules")}
    return "(" + ", ".join(f"{k}={getattr(v, 'value', v)}" for k, v in fields.items()) + ")"
