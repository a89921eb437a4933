"""The Le Truc rules engine: pure, standard library only.

``decide(state, command) -> events`` refuses illegal commands with an R27 code;
``evolve(state, event) -> state`` folds facts; ``replay(events)`` is that fold;
``step(state, command) -> Step(state, events)`` is both, the way every player of a match
(the service, the playthrough, the benchmarks, a bot's search) applies a command;
``legal_actions(state, seat)`` lists what ``decide`` accepts; ``visibility`` decides what
one seat may see: ``view(state, seat)`` of the match, ``shown(event, ...)`` of each fact.

Time is an input (R28-R32): ``clocked(state, at_ms)`` gives a state the time of its latest
event (``shared.fold`` does it for every reader); ``owes(state)`` and ``deadline(state)``
say who must decide by when; the service decides ``TimeOut(seat, now_ms)`` and
``ExpireLobby(now_ms, lobby_seconds)`` like any command.
"""
from .cards import (
    DECK,
    RANKS,
    SUITS,
    InvalidCardError,
    InvalidDeckError,
    parse_card,
    parse_deck,
    shuffled_deck,
    strength,
)
from .clock import clocked, deadline, default_decision, iso_utc, lobby_deadline, owes
from .commands import (
    ACTIONS,
    Accept,
    Cancel,
    CreateMatch,
    DeclareRemainder,
    ExpireLobby,
    Fold,
    JoinMatch,
    PlayCard,
    PlayerAction,
    ProposeRedeal,
    Raise,
    Reject,
    Resign,
    TimeOut,
    command_for,
)
from .decide import Command, decide
from .events import EVENT_TYPES, Event
from .evolve import evolve, replay
from .legal import legal_actions
from .rule_errors import RuleCode, RuleError, SetupError
from .state import (
    INITIAL,
    SEATS,
    CancelReason,
    Ending,
    MatchState,
    QuestionKind,
    RoundEnd,
    Seat,
    Status,
    WinReason,
)
from .step import Step, step
from .variants import InvalidRulesError, RaiseLadder, RedealProposer, RemainderReject, Rules
from .visibility import replay_view, shown, shown_events, view

__all__ = [
    "ACTIONS", "DECK", "EVENT_TYPES", "INITIAL", "RANKS", "SEATS", "SUITS", "Accept", "Cancel",
    "CancelReason", "Command", "CreateMatch", "DeclareRemainder", "Ending", "Event", "ExpireLobby",
    "Fold", "InvalidCardError", "InvalidDeckError", "InvalidRulesError", "JoinMatch", "MatchState",
    "PlayCard", "PlayerAction", "ProposeRedeal", "QuestionKind", "Raise", "RaiseLadder",
    "RedealProposer", "Reject", "RemainderReject", "Resign", "RoundEnd", "RuleCode", "RuleError",
    "Rules", "Seat", "SetupError", "Status", "Step", "TimeOut", "WinReason", "clocked", "command_for",
    "deadline", "decide", "default_decision", "evolve", "iso_utc", "legal_actions", "lobby_deadline",
    "owes", "parse_card", "parse_deck", "replay", "replay_view", "shown", "shown_events",
    "shuffled_deck", "step", "strength", "view",
]
