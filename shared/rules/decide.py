"""``decide(state, command) -> events``: refuse with an R27 code, or say what happened."""
from __future__ import annotations

import random
from collections.abc import Callable

from . import events as ev
from . import scoring
from .cards import InvalidCardError, InvalidDeckError, parse_deck, shuffled_deck, split_deal
from .check import refusal
from .commands import (
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
)
from .errors import RuleCode, RuleError, SetupError
from .evolve import evolve, replay
from .state import MatchState, QuestionKind, Seat, Status, with_seat

Command = CreateMatch | JoinMatch | PlayerAction


def decide(state: MatchState, command: Command, rng: random.Random | None = None) -> list[ev.Event]:
    """The events ``command`` records, or a RuleError (nothing recorded).

    ``rng`` is the randomness for any deal the command triggers (a new round) beyond the
    match's fixture decks; the engine draws nothing itself.
    """
    if isinstance(command, CreateMatch):
        return [_create(state, command, rng)]
    if isinstance(command, JoinMatch):
        return _join(state, command, rng)
    error = refusal(state, command)
    if error is not None:
        raise error
    return _ACTIONS[type(command)](state, command, rng)


def _create(state: MatchState, command: CreateMatch, rng: random.Random | None) -> ev.MatchCreated:
    if state.status is not Status.NEW:
        raise RuleError(RuleCode.MATCH_EXISTS, "This match already exists.")
    target = command.rules.target
    if len(command.start_scores) != 2 or any(
        isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < target for s in command.start_scores
    ):
        raise SetupError("start_scores", f"Start scores must be two whole numbers from 0 to {target - 1}.")
    try:
        decks = tuple(parse_deck(deck) for deck in command.decks)
    except (InvalidCardError, InvalidDeckError) as error:
        raise SetupError("decks", str(error)) from None
    first_dealer = command.first_dealer or _need(rng).choice((Seat.A, Seat.B))
    return ev.MatchCreated(
        match_id=command.match_id, creator_id=command.creator_id, creator_name=command.creator_name,
        rules=command.rules, first_dealer=first_dealer, start_scores=tuple(command.start_scores),
        decks=decks, custom=bool(decks) or tuple(command.start_scores) != (0, 0),
    )


def _join(state: MatchState, command: JoinMatch, rng: random.Random | None) -> list[ev.Event]:
    if state.status is Status.NEW:
        raise RuleError(RuleCode.NO_MATCH, "There is no such match.")
    if state.seat_of(command.player_id) is not None:
        raise RuleError(RuleCode.ALREADY_SEATED, "You are already seated in this match.")
    if state.status is not Status.WAITING:
        raise RuleError(RuleCode.MATCH_FULL, "Both seats of this match are taken.")
    joined = ev.PlayerJoined(Seat.B, command.player_id, command.player_name)
    return [joined, _deal(evolve(state, joined), state.first_dealer, rng)]


def _deal(state: MatchState, dealer: Seat, rng: random.Random | None) -> ev.RoundDealt:
    """Deal the next round (R6) from its fixture deck, or a shuffle drawn from ``rng``."""
    number = state.rounds_dealt + 1
    deck = state.decks[number - 1] if number <= len(state.decks) else shuffled_deck(_need(rng))
    hands, stock = _hands(dealer, deck)
    return ev.RoundDealt(round=number, dealer=dealer, hands=hands, stock=stock)


def _hands(dealer: Seat, cards: tuple[str, ...]) -> tuple[ev.Hands, tuple[str, ...]]:
    """Three cards each, non-dealer first (R6; R8 deals a redeal the same way from the stock)."""
    non_dealer_hand, dealer_hand, rest = split_deal(cards)
    hands = (dealer_hand, non_dealer_hand) if dealer is Seat.A else (non_dealer_hand, dealer_hand)
    return hands, rest


def _need(rng: random.Random | None) -> random.Random:
    if rng is None:
        raise ValueError("this command deals cards: pass the randomness (rng) to decide")
    return rng


def _end_round(state: MatchState, award: scoring.Award | None, rng: random.Random | None) -> list[ev.Event]:
    """Close the round (R21-R23): score it, then either the match is won or the next round is dealt."""
    rnd = state.round
    if award is None:
        closing: ev.Event = ev.RoundVoid(round=rnd.number)
        scores = state.scores
    else:
        scores = with_seat(state.scores, award.seat, state.score(award.seat) + award.points)
        closing = ev.RoundWon(rnd.number, award.seat, award.points, award.reason, scores)
    leader = max((Seat.A, Seat.B), key=lambda seat: scores[seat.index])
    if scores[leader.index] >= state.rules.target:
        return [closing, ev.MatchWon(leader, scores)]
    return [closing, _deal(evolve(state, closing), rnd.dealer.other, rng)]


def _play(state: MatchState, command: PlayCard, rng: random.Random | None) -> list[ev.Event]:
    events: list[ev.Event] = [ev.CardPlayed(command.seat, command.card)]
    tricks = replay(events, state).round.tricks
    trick, number = tricks[-1], len(tricks)
    if not trick.complete:
        return events
    winner = scoring.trick_winner(trick)
    events.append(ev.TrickWon(number, winner) if winner else ev.TrickSpoiled(number))
    settled = replay(events, state)
    verdict = scoring.decide_round(settled.round.tricks)
    if not verdict.over:
        return events
    award = scoring.won_by_tricks(settled, verdict.winner) if verdict.winner else None
    return events + _end_round(settled, award, rng)


def _request(state: MatchState, command: PlayerAction, rng: random.Random | None) -> list[ev.Event]:
    if isinstance(command, Raise):
        return [ev.RaiseProposed(command.seat, state.rules.next_value(state.round.value))]
    return [ev.RemainderDeclared(command.seat)]


def _remainder(state: MatchState, command: DeclareRemainder, rng: random.Random | None) -> list[ev.Event]:
    pending = state.round.pending
    if pending is not None and pending.kind is QuestionKind.REMAINDER:
        return _accept(state, Accept(command.seat), rng)  # R18: the counter-declaration accepts
    return _request(state, command, rng)


def _accept(state: MatchState, command: Accept, rng: random.Random | None) -> list[ev.Event]:
    rnd = state.round
    kind = rnd.pending.kind
    if kind is QuestionKind.RAISE:
        return [ev.RaiseAccepted(command.seat, rnd.pending.value)]
    if kind is QuestionKind.REMAINDER:
        return [ev.RemainderAccepted(command.seat)]
    hands, _ = _hands(rnd.dealer, rnd.stock)
    return [ev.RedealAccepted(command.seat, hands)]


def _reject(state: MatchState, command: Reject, rng: random.Random | None) -> list[ev.Event]:
    kind = state.round.pending.kind
    if kind is QuestionKind.REDEAL:
        return [ev.RedealRejected(command.seat)]
    rejected = ev.RaiseRejected(command.seat) if kind is QuestionKind.RAISE else ev.RemainderRejected(command.seat)
    return [rejected] + _end_round(state, scoring.rejection(state), rng)


def _fold(state: MatchState, command: Fold, rng: random.Random | None) -> list[ev.Event]:
    return [ev.Folded(command.seat)] + _end_round(state, scoring.fold(state, command.seat), rng)


def _propose_redeal(state: MatchState, command: ProposeRedeal, rng: random.Random | None) -> list[ev.Event]:
    return [ev.RedealProposed(command.seat)]


_ACTIONS: dict[type, Callable[..., list[ev.Event]]] = {
    PlayCard: _play,
    Raise: _request,
    DeclareRemainder: _remainder,
    Accept: _accept,
    Reject: _reject,
    Fold: _fold,
    ProposeRedeal: _propose_redeal,
}
