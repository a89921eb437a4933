"""The audit's checks of the log itself: versions, the hash chain, identities, deals and the
seed; then the re-derivation of every decision (:mod:`.rederive`)."""
from __future__ import annotations

from collections.abc import Sequence

from shared.codec import UnknownEventError, decode
from shared.eventstore.chain import chain_hash, genesis_hash
from shared.eventstore.port import StoredEvent, encode_data
from shared.identity import validate_player_id, validate_player_name
from shared.rules import DECK, CancelReason, Event, Seat
from shared.rules import events as ev
from shared.rules.chance import Chance, SeededChance, fits_commitment

from .rederive import rederive
from .report import AuditReport


def audit_events(match_id: str, stored: Sequence[StoredEvent], lobby_seconds: int | None = None) -> AuditReport:
    """Every check that needs only the event log, in order; the report names the first bad event.

    ``lobby_seconds``: the server's ``LOBBY_SECONDS``, if the auditor knows it; without it a
    lobby expiry is checked for everything but having waited that long (see :mod:`.rederive`).
    """
    report = AuditReport(match_id, len(stored))
    _check_versions(stored, report)
    _check_chain(match_id, stored, report)
    if report.ok:
        _check_rules(stored, report, lobby_seconds)
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


def _check_rules(stored: Sequence[StoredEvent], report: AuditReport, lobby_seconds: int | None) -> None:
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
    _note_expiry(events, report, lobby_seconds)
    rederive(stored, events, chance, report, lobby_seconds)


def _note_expiry(events: Sequence[Event], report: AuditReport, lobby_seconds: int | None) -> None:
    expired = any(isinstance(e, ev.MatchCancelled) and e.reason is CancelReason.EXPIRED for e in events)
    if expired and lobby_seconds is None:
        report.notes.append("lobby expiry checked as waiting and not before creation only: "
                            "LOBBY_SECONDS is not recorded (give it to check the wait)")
    elif expired:
        report.notes.append(f"lobby expiry checked against LOBBY_SECONDS={lobby_seconds}")


def _chance(stored: Sequence[StoredEvent], events: Sequence[Event], report: AuditReport) -> Chance | None:
    created = events[0] if events and isinstance(events[0], ev.MatchCreated) else None
    won = events[-1] if events and isinstance(events[-1], ev.MatchWon) else None
    if created is not None and created.decks:
        report.notes.append(f"custom match: rounds 1-{len(created.decks)} were dealt from given decks")
    if events and isinstance(events[-1], ev.MatchCancelled):
        report.notes.append("cancelled while waiting: nothing was dealt")
        return RecordedChance(events)
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
    """The match created is ``match_id``, and each player seated has an id (and, recorded in schema 1, a
    name) the API accepts."""
    for record, event in zip(stored, events):
        if isinstance(event, ev.MatchCreated):
            if event.match_id != match_id:
                report.fail(record.version, "identity", f"{event.type} creates another match: {event.match_id!r}")
                return False
            seated = (event.creator_id, record.data.get("creator_name"))
        elif isinstance(event, ev.PlayerJoined):
            seated = (event.player_id, record.data.get("player_name"))
        else:
            continue
        try:
            validate_player_id(seated[0])
            if seated[1] is not None:  # schema 1 recorded the name: one the API accepts
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
