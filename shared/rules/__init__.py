"""The Le Truc rules engine: pure, standard library only.

``decide(state, command) -> events`` refuses illegal commands with an R27 code;
``evolve(state, event) -> state`` folds facts; ``replay(events)`` is that fold;
``legal_actions(state, seat)`` lists what ``decide`` accepts; ``visibility`` decides what
one seat may see: ``view(state, seat)`` of the match, ``shown(event, ...)`` of each fact.
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
from .commands import (
    ACTIONS,
    Accept,
    CreateMatch,
    DeclareRemainder,
    Fold,
    JoinMatch,
    PlayCard,
    PlayerAction,
    ProposeRedeal,
    Raise,
    Reject,
    command_for,
)
from .decide import Command, decide
from .errors import RuleCode, RuleError, SetupError
from .events import EVENT_TYPES, Event
from .evolve import evolve, replay
from .legal import legal_actions
from .state import INITIAL, SEATS, MatchState, QuestionKind, RoundEnd, Seat, Status
from .variants import InvalidRulesError, RaiseLadder, RedealProposer, RemainderReject, Rules
from .visibility import replay_view, shown, shown_events, view

__all__ = [
    "ACTIONS", "DECK", "EVENT_TYPES", "INITIAL", "RANKS", "SEATS", "SUITS", "Accept", "Command",
    "CreateMatch", "DeclareRemainder", "Event", "Fold", "InvalidCardError", "InvalidDeckError",
    "InvalidRulesError", "JoinMatch", "MatchState", "PlayCard", "PlayerAction", "ProposeRedeal",
    "QuestionKind", "Raise", "RaiseLadder", "RedealProposer", "Reject", "RemainderReject",
    "RoundEnd", "RuleCode", "RuleError", "Rules", "Seat", "SetupError", "Status", "command_for",
    "decide", "evolve", "legal_actions", "parse_card", "parse_deck", "replay", "replay_view", "shown",
    "shown_events", "shuffled_deck", "strength", "view",
]
