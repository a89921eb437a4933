"""Re-decide a match from what was decided in it, and compare with what was recorded.

Every event that is the first fact of a decision names the command behind it
(:func:`command_of`): a player's action (a resignation is the ``match_won`` it records),
a seating, or one of the service's own commands. ``decide`` on the match as it stood —
its clock set from the stored time of the event before, as every reader's fold sets it —
must yield exactly the events recorded from there.

A timeout is the service's ``TimeOut(seat, at)`` at the timed-out event's own stored time.
Before deciding it, two ``time`` findings are looked for: the timeout was recorded before
its deadline (the stored time of the event before, plus ``turn_seconds``), or its
``deadline`` field is not that deadline. The engine then derives the default decision, or
R30's abandonment for a second timeout in a row, so a forged default is a mismatch like
any other.

A lobby expiry cannot be held to ``LOBBY_SECONDS``: that is a server setting, and the log
does not record it. It is re-decided as ``ExpireLobby(at, lobby_seconds)`` with the
setting when the auditor gives it, else with 0. Checked either way: the match was still
waiting, the expiry is not timed before the match's creation, and its event is the
engine's; with the setting, also that the match had waited that long.

Each decision is re-derived by the engine's ``step``, as the service made it: the events
it decides are compared with the log, and the state it leads to is the next one audited.
"""
from __future__ import annotations

from collections.abc import Sequence

from shared.eventstore.port import StoredEvent
from shared.rules import (
    INITIAL,
    CancelReason,
    Command,
    Event,
    MatchState,
    RuleError,
    Seat,
    Step,
    WinReason,
    clocked,
    deadline,
    iso_utc,
    owes,
    step,
)
from shared.rules import commands as cmd
from shared.rules import events as ev
from shared.rules.chance import Chance, SeededChance

from .report import AuditReport


def rederive(stored: Sequence[StoredEvent], events: Sequence[Event], chance: Chance, report: AuditReport,
             lobby_seconds: int | None = None) -> None:
    """Re-decide every decision recorded in ``events``; the first difference is a finding."""
    state, i = INITIAL, 0
    while i < len(events):
        if i:
            state = clocked(state, stored[i - 1].at)  # the clock runs from the event before (R28)
        expected = _decided(state, stored[i], events[i], chance, report, lobby_seconds)
        if expected is None or not _recorded_as(expected.events, stored, events, i, chance, report):
            return
        state, i = expected.state, i + len(expected.events)


def _decided(state: MatchState, record: StoredEvent, event: Event, chance: Chance, report: AuditReport,
             lobby_seconds: int | None) -> Step | None:
    """The engine's step for the command behind ``event``; None after a finding."""
    command = command_of(event, record.at, lobby_seconds or 0)
    if command is None:
        report.fail(record.version, "rules", f"{event.type} is not a player action at this point")
        return None
    late = _early_timeout(state, event, record.at)
    if late is not None:
        report.fail(record.version, "time", late)
        return None
    try:
        return step(state, command, chance)
    except RuleError as refusal:
        report.fail(record.version, "rules", f"{event.type} was illegal here: {refusal.code.value}")
    except ValueError as error:  # SetupError included: a creation no service would accept
        report.fail(record.version, "rules", f"{event.type} cannot be replayed: {error}")
    return None


def _early_timeout(state: MatchState, event: Event, at: int) -> str | None:
    """What is wrong with the time of a ``turn_timed_out``, if anything (R28-R29).

    A timeout of a seat that owes nothing is left to the engine, which refuses it.
    """
    due = deadline(state)
    if not isinstance(event, ev.TurnTimedOut) or due is None or owes(state) is not event.seat:
        return None
    since = f"the event before at {_iso(state.at)} + {state.rules.turn_seconds} s"
    if at < due:
        return f"{event.type} recorded at {_iso(at)}, before {event.seat.value}'s deadline {_iso(due)} ({since})"
    if event.deadline != due:
        return f"{event.type} names the deadline {_iso(event.deadline)}, but it was {_iso(due)} ({since})"
    return None


def _recorded_as(expected: list[Event], stored: Sequence[StoredEvent], events: Sequence[Event], i: int,
                 chance: Chance, report: AuditReport) -> bool:
    """Whether the log holds ``expected`` from event ``i`` on; a finding on the first difference."""
    found = list(events[i:i + len(expected)])
    for offset, (want, got) in enumerate(zip(expected, found + [None] * len(expected))):
        if want != got:
            kind = "deal" if isinstance(want, ev.RoundDealt) and isinstance(chance, SeededChance) else "rules"
            version = stored[i + offset].version if i + offset < len(stored) else len(stored) + 1
            report.fail(version, kind, f"the rules derive {want.type} {_brief(want)}, the log has "
                                       f"{getattr(got, 'type', 'nothing')} {_brief(got)}")
            return False
    return True


def command_of(event: Event, at: int, lobby_seconds: int = 0) -> Command | None:
    """The command a recorded event (stored at ``at``, epoch ms) is the first fact of; None
    if it is derived (a trick, a round's end, a win on score or by abandonment, a deal)."""
    if isinstance(event, ev.MatchCreated):
        start = event.start_scores if event.custom and (not event.decks or event.start_scores != (0, 0)) else None
        return cmd.CreateMatch(event.match_id, event.creator_id, event.rules, event.first_dealer, start,
                               event.decks, private=event.private, capped=event.capped, rated=event.rated,
                               bot_level=event.bot_level)
    if isinstance(event, ev.PlayerJoined):
        return cmd.JoinMatch(event.player_id)
    if isinstance(event, ev.CardPlayed):
        return cmd.PlayCard(event.seat, event.card)
    if isinstance(event, ev.TurnTimedOut):
        return cmd.TimeOut(event.seat, at)
    if isinstance(event, ev.MatchWon):
        return cmd.Resign(event.seat.other) if event.reason is WinReason.RESIGNED else None
    if isinstance(event, ev.MatchCancelled):
        return cmd.Cancel(Seat.A) if event.reason is CancelReason.CREATOR else cmd.ExpireLobby(at, lobby_seconds)
    action = _ACTIONS.get(type(event))
    return None if action is None else action(event.seat)


_ACTIONS: dict[type, type[cmd.PlayerAction]] = {
    ev.RedealProposed: cmd.ProposeRedeal, ev.RaiseProposed: cmd.Raise, ev.RemainderDeclared: cmd.DeclareRemainder,
    ev.RedealAccepted: cmd.Accept, ev.RaiseAccepted: cmd.Accept, ev.RemainderAccepted: cmd.Accept,
    ev.RedealRejected: cmd.Reject, ev.RaiseRejected: cmd.Reject, ev.RemainderRejected: cmd.Reject,
    ev.Folded: cmd.Fold,
}


def _iso(ms: int | None) -> str:
    """Epoch ms as ISO 8601 UTC; a number no clock could give, as the number."""
    try:
        return iso_utc(ms)
    except (OverflowError, TypeError, ValueError):
        return str(ms)


def _brief(event: Event | None) -> str:
    if event is None:
        return ""
    fields = {k: v for k, v in vars(event).items() if k not in ("stock", "decks", "rules")}
    return "(" + ", ".join(f"{k}={getattr(v, 'value', v)}" for k, v in fields.items()) + ")"
