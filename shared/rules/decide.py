"""``decide(state, command) -> events``: refuse with an R27 code, or say what happened."""
from __future__ import annotations

import random
from collections.abc import Callable

from . import events as ev
from . import scoring
from .cards import InvalidCardError, InvalidDeckError, parse_deck, split_deal
from .chance import Chance, as_chance
from .check import listed, refusal
from .clock import deadline, default_decision
from .commands import (
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
)
from .evolve import evolve
from .rule_errors import RuleCode, RuleError, SetupError
from .state import CancelReason, MatchState, QuestionKind, Seat, Status, WinReason, with_seat

Command = CreateMatch | JoinMatch | PlayerAction | TimeOut | ExpireLobby


def decide(state: MatchState, command: Command, chance: Chance | random.Random | None = None) -> list[ev.Event]:
    """The events ``command`` records, or a RuleError (nothing recorded).

    ``command`` is a player's action, the seating of a player, or one of the service's own:
    ``TimeOut`` (R29-R30) and ``ExpireLobby`` (R32), decided against the clock the state
    carries (see ``clock``). ``chance`` is where any deal the command triggers (a new round
    beyond the match's fixture decks) comes from, and a drawn first dealer; the engine
    draws nothing itself.
    """
    return decided(state, command, chance)[1]


def decided(
    state: MatchState, command: Command, chance: Chance | random.Random | None = None,
) -> tuple[MatchState, list[ev.Event]]:
    """``decide``, with the state its events lead to: they are folded as they are recorded
    (a later fact is decided on the state the earlier ones led to), so ``step`` has it."""
    chance = as_chance(chance)
    record = _Record(state)
    if isinstance(command, CreateMatch):
        record(_create(state, command, chance))
    elif isinstance(command, JoinMatch):
        _join(state, command, chance, record)
    else:
        _refuse_if_illegal(state, command)
        _ACTIONS[type(command)](state, command, chance, record)
    return record.state, record.events


def _refuse_if_illegal(state: MatchState, command: Command) -> None:
    """Raise R27's first refusal of ``command``; one ``permitted`` lists is let through at once."""
    if listed(state, command):
        return
    error = refusal(state, command)
    if error is not None:
        raise error


class _Record:
    """The events a command records, oldest first, each folded into ``state`` as it is recorded."""

    __slots__ = ("state", "events")

    def __init__(self, state: MatchState) -> None:
        self.state = state
        self.events: list[ev.Event] = []

    def __call__(self, event: ev.Event) -> MatchState:
        """Record ``event``; the state it leads to."""
        self.events.append(event)
        self.state = evolve(self.state, event)
        return self.state


def _create(state: MatchState, command: CreateMatch, chance: Chance | None) -> ev.MatchCreated:
    if state.status is not Status.NEW:
        raise RuleError(RuleCode.MATCH_EXISTS, "This match already exists.")
    target = command.rules.target
    start_scores = (0, 0) if command.start_scores is None else tuple(command.start_scores)
    if len(start_scores) != 2 or any(
        isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < target for s in start_scores
    ):
        raise SetupError("start_scores", "Start scores must be two whole numbers from 0 to {highest}.",
                         highest=target - 1)
    try:
        decks = tuple(parse_deck(deck) for deck in command.decks)
    except (InvalidCardError, InvalidDeckError) as error:
        raise SetupError("decks", error.template, **error.params) from None
    first_dealer = command.first_dealer or _need(chance).first_dealer()
    return ev.MatchCreated(
        match_id=command.match_id, creator_id=command.creator_id,
        rules=command.rules, first_dealer=first_dealer, start_scores=start_scores,
        decks=decks, custom=bool(decks) or command.start_scores is not None,
        seed_commitment=chance.commitment if chance else None,
        private=command.private, capped=command.capped, rated=command.rated, bot_level=command.bot_level,
    )


def _join(state: MatchState, command: JoinMatch, chance: Chance | None, record: _Record) -> None:
    if state.status is Status.NEW:
        raise RuleError(RuleCode.NO_MATCH, "There is no such match.")
    if state.status is Status.CANCELLED:
        raise RuleError(RuleCode.MATCH_OVER, "The match was cancelled: it can no longer be joined.")
    if state.seat_of(command.player_id) is not None:
        raise RuleError(RuleCode.ALREADY_SEATED, "You are already seated in this match.")
    if state.status is not Status.WAITING:
        raise RuleError(RuleCode.MATCH_FULL, "Both seats of this match are taken.")
    seated = record(ev.PlayerJoined(Seat.B, command.player_id))
    record(_deal(seated, state.first_dealer, chance))


def _deal(state: MatchState, dealer: Seat, chance: Chance | None) -> ev.RoundDealt:
    """Deal the next round (R6) from its fixture deck, or from ``chance``."""
    number = state.rounds_dealt + 1
    deck = state.decks[number - 1] if number <= len(state.decks) else _need(chance).deck(number)
    hands, stock = _hands(dealer, deck)
    return ev.RoundDealt(round=number, dealer=dealer, hands=hands, stock=stock)


def _hands(dealer: Seat, cards: tuple[str, ...]) -> tuple[ev.Hands, tuple[str, ...]]:
    """Three cards each, non-dealer first (R6; R8 deals a redeal the same way from the stock)."""
    non_dealer_hand, dealer_hand, rest = split_deal(cards)
    hands = (dealer_hand, non_dealer_hand) if dealer is Seat.A else (non_dealer_hand, dealer_hand)
    return hands, rest


def _need(chance: Chance | None) -> Chance:
    if chance is None:
        raise ValueError("this command deals cards: pass the chance to decide")
    return chance


def _end_round(state: MatchState, award: scoring.Award | None, chance: Chance | None, record: _Record) -> None:
    """Close the round (R21-R23): score it, then either the match is won or the next round is dealt.

    ``state`` is the match after the round's last action (its round not yet closed): the one
    its closing event is folded into."""
    rnd = state.round
    if award is None:
        closing: ev.Event = ev.RoundVoid(round=rnd.number)
        scores = state.scores
    else:
        scores = with_seat(state.scores, award.seat, state.score(award.seat) + award.points)
        closing = ev.RoundWon(rnd.number, award.seat, award.points, award.reason, scores)
    closed = record(closing)
    leader = max((Seat.A, Seat.B), key=lambda seat: scores[seat.index])
    if scores[leader.index] >= state.rules.target:
        record(_won(leader, scores, WinReason.SCORE, chance))
    elif state.capped and rnd.number >= state.rules.round_cap:
        record(_won(_capped_winner(scores, rnd.dealer), scores, WinReason.ROUND_CAP, chance))
    else:
        record(_deal(closed, rnd.dealer.other, chance))


def _capped_winner(scores: tuple[int, int], dealer: Seat) -> Seat:
    """R33: the higher score wins a match that reached its round cap; on equal scores, the seat
    that did not deal the last round, so a tie always has one winner and no replayed round."""
    if scores[0] == scores[1]:
        return dealer.other
    return Seat.A if scores[0] > scores[1] else Seat.B


def _won(seat: Seat, scores: tuple[int, int], reason: WinReason, chance: Chance | None) -> ev.MatchWon:
    """The match is over: ``seat`` won it, and the seed behind every deal is revealed."""
    return ev.MatchWon(seat, scores, chance.reveal() if chance else None, reason)


def _play(state: MatchState, command: PlayCard, chance: Chance | None, record: _Record) -> None:
    played = record(ev.CardPlayed(command.seat, command.card))
    tricks = played.round.tricks
    trick, number = tricks[-1], len(tricks)
    if not trick.complete:
        return
    winner = scoring.trick_winner(trick)
    settled = record(ev.TrickWon(number, winner) if winner else ev.TrickSpoiled(number))
    verdict = scoring.decide_round(settled.round.tricks)
    if verdict.over:
        award = scoring.won_by_tricks(settled, verdict.winner) if verdict.winner else None
        _end_round(settled, award, chance, record)


def _request(state: MatchState, command: PlayerAction, chance: Chance | None, record: _Record) -> None:
    if isinstance(command, Raise):
        record(ev.RaiseProposed(command.seat, state.rules.next_value(state.round.value)))
    else:
        record(ev.RemainderDeclared(command.seat))


def _remainder(state: MatchState, command: DeclareRemainder, chance: Chance | None, record: _Record) -> None:
    pending = state.round.pending
    if pending is not None and pending.kind is QuestionKind.REMAINDER:
        _accept(state, Accept(command.seat), chance, record)  # R18: the counter-declaration accepts
    else:
        _request(state, command, chance, record)


def _accept(state: MatchState, command: Accept, chance: Chance | None, record: _Record) -> None:
    rnd = state.round
    kind = rnd.pending.kind
    if kind is QuestionKind.RAISE:
        record(ev.RaiseAccepted(command.seat, rnd.pending.value))
    elif kind is QuestionKind.REMAINDER:
        record(ev.RemainderAccepted(command.seat))
    else:
        record(ev.RedealAccepted(command.seat, _hands(rnd.dealer, rnd.stock)[0]))


def _reject(state: MatchState, command: Reject, chance: Chance | None, record: _Record) -> None:
    kind = state.round.pending.kind
    if kind is QuestionKind.REDEAL:
        record(ev.RedealRejected(command.seat))
        return
    award = scoring.rejection(state)
    answer = ev.RaiseRejected if kind is QuestionKind.RAISE else ev.RemainderRejected
    rejected = record(answer(command.seat))
    _end_round(rejected, award, chance, record)


def _fold(state: MatchState, command: Fold, chance: Chance | None, record: _Record) -> None:
    award = scoring.fold(state, command.seat)
    _end_round(record(ev.Folded(command.seat)), award, chance, record)


def _propose_redeal(state: MatchState, command: ProposeRedeal, chance: Chance | None, record: _Record) -> None:
    record(ev.RedealProposed(command.seat))


def _resign(state: MatchState, command: Resign, chance: Chance | None, record: _Record) -> None:
    record(_won(command.seat.other, state.scores, WinReason.RESIGNED, chance))  # R31: scores as they stood


def _cancel(state: MatchState, command: Cancel, chance: Chance | None, record: _Record) -> None:
    record(ev.MatchCancelled(CancelReason.CREATOR))


def _expire(state: MatchState, command: ExpireLobby, chance: Chance | None, record: _Record) -> None:
    record(ev.MatchCancelled(CancelReason.EXPIRED))


def _time_out(state: MatchState, command: TimeOut, chance: Chance | None, record: _Record) -> None:
    """R29: the seat's default decision, with its ordinary consequences; R30: the second
    timeout in a row, with no action of the seat's own between, loses the match."""
    seat = command.seat
    after_timeout = record(ev.TurnTimedOut(seat, deadline(state)))
    if state.timeouts[seat.index]:
        record(_won(seat.other, state.scores, WinReason.ABANDONED, chance))
        return
    default = default_decision(state, seat)
    _ACTIONS[type(default)](after_timeout, default, chance, record)


_ACTIONS: dict[type, Callable[[MatchState, Command, Chance | None, _Record], None]] = {
    PlayCard: _play,
    Raise: _request,
    DeclareRemainder: _remainder,
    Accept: _accept,
    Reject: _reject,
    Fold: _fold,
    ProposeRedeal: _propose_redeal,
    Resign: _resign,
    Cancel: _cancel,
    TimeOut: _time_out,
    ExpireLobby: _expire,
}
