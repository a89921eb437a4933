"""``evolve(state, event) -> state``: the only way state changes. Each fact, one small step."""
from __future__ import annotations

from collections.abc import Callable, Iterable

from . import events as ev
from .state import (
    INITIAL,
    CancelReason,
    Ending,
    MatchState,
    Player,
    Question,
    QuestionKind,
    RoundState,
    RoundSummary,
    Status,
    Trick,
    WinReason,
    copy_with,
    with_seat,
)


def evolve(state: MatchState, event: ev.Event) -> MatchState:
    """Apply one recorded fact to ``state``, returning the new state."""
    return _STEPS[type(event)](state, event)


def replay(events: Iterable[ev.Event], state: MatchState = INITIAL) -> MatchState:
    """Fold ``events`` over ``state`` (the empty match by default)."""
    for event in events:
        state = evolve(state, event)
    return state


def _match_created(state: MatchState, e: ev.MatchCreated) -> MatchState:
    return MatchState(
        match_id=e.match_id, status=Status.WAITING, rules=e.rules,
        players=(Player(e.creator_id), None), scores=e.start_scores,
        first_dealer=e.first_dealer, decks=e.decks, seed_commitment=e.seed_commitment,
        # Recorded ``custom`` says the creator chose decks or start scores; a short clock or
        # target is custom too, said of matches recorded before that rule as well.
        custom=e.custom or e.rules.custom_terms, private=e.private, capped=e.capped, bot_level=e.bot_level,
        rated=e.rated,
    )


def _player_joined(state: MatchState, e: ev.PlayerJoined) -> MatchState:
    players = with_seat(state.players, e.seat, Player(e.player_id))
    return copy_with(state, players=players, status=Status.PLAYING)


def _round_dealt(state: MatchState, e: ev.RoundDealt) -> MatchState:
    return copy_with(
        state, round=RoundState(number=e.round, dealer=e.dealer, hands=e.hands, stock=e.stock),
        rounds_dealt=e.round,
    )


def _ask(kind: QuestionKind, value: Callable[[MatchState], int]) -> Callable:
    def step(state: MatchState, e: ev.Event) -> MatchState:
        question = Question(kind, e.seat, value(state))
        if kind is QuestionKind.REDEAL:
            return state.with_round(pending=question)
        # A request closes the redeal window (R8) and uses the turn's one request (R9).
        return state.with_round(pending=question, requested_this_turn=True, redeal_open=False)
    return step


def _answer_closes(state: MatchState, e: ev.Event) -> MatchState:
    return state.with_round(pending=None, redeal_open=False)


def _redeal_accepted(state: MatchState, e: ev.RedealAccepted) -> MatchState:
    rnd = state.round
    return state.with_round(
        hands=e.hands, stock=rnd.stock[6:], discarded=rnd.discarded + rnd.hands[0] + rnd.hands[1],
        pending=None, redeal_open=False,
    )


def _raise_accepted(state: MatchState, e: ev.RaiseAccepted) -> MatchState:
    return state.with_round(value=e.value, pending=None, last_accepted_by=state.round.pending.by)


def _remainder_accepted(state: MatchState, e: ev.RemainderAccepted) -> MatchState:
    return state.with_round(remainder_round=True, pending=None, last_accepted_by=state.round.pending.by)


def _card_played(state: MatchState, e: ev.CardPlayed) -> MatchState:
    rnd = state.round
    tricks = rnd.tricks
    if not tricks or tricks[-1].complete:
        tricks += (Trick(leader=e.seat),)
    current = tricks[-1]
    current = copy_with(current, cards=with_seat(current.cards, e.seat, e.card))
    hand = tuple(card for card in rnd.hand(e.seat) if card != e.card)
    return state.with_round(
        tricks=tricks[:-1] + (current,), hands=with_seat(rnd.hands, e.seat, hand),
        requested_this_turn=False, redeal_open=False,
    )


def _trick_settled(state: MatchState, e: ev.TrickWon | ev.TrickSpoiled) -> MatchState:
    tricks = state.round.tricks
    winner = getattr(e, "seat", None)
    settled = copy_with(tricks[-1], winner=winner, spoiled=winner is None)
    return state.with_round(tricks=tricks[:-1] + (settled,))


def _round_over(state: MatchState, e: ev.RoundWon | ev.RoundVoid) -> MatchState:
    rnd = state.round
    won = isinstance(e, ev.RoundWon)
    summary = RoundSummary(
        number=rnd.number, dealer=rnd.dealer, value=rnd.value,
        winner=e.seat if won else None, points=e.points if won else 0,
        reason=e.reason if won else ev.RoundEnd.ALL_SPOILED, tricks=rnd.tricks,
    )
    return copy_with(state, round=None, last_round=summary, scores=e.scores if won else state.scores)


def _match_won(state: MatchState, e: ev.MatchWon) -> MatchState:
    return copy_with(state, status=Status.FINISHED, winner=e.seat, round=None, seed=e.seed, ended_by=_ending(state, e))


def _ending(state: MatchState, e: ev.MatchWon) -> Ending:
    """How the match ended: its recorded reason, unless a seat left before round 1 was complete
    (no round won or void yet): then it is aborted, a loss for that seat but no result."""
    if e.reason in _LEAVING and state.last_round is None:
        return Ending.ABORTED
    return Ending(e.reason.value)


_LEAVING = frozenset({WinReason.RESIGNED, WinReason.ABANDONED})


def _match_cancelled(state: MatchState, e: ev.MatchCancelled) -> MatchState:
    ended_by = Ending.CANCELLED if e.reason is CancelReason.CREATOR else Ending.EXPIRED
    return copy_with(state, status=Status.CANCELLED, ended_by=ended_by)


def _turn_timed_out(state: MatchState, e: ev.TurnTimedOut) -> MatchState:
    # R30 counts it; the default decision that follows is the seat's, but not its own action.
    timeouts = with_seat(state.timeouts, e.seat, state.timeouts[e.seat.index] + 1)
    return copy_with(state, timeouts=timeouts, defaulting=e.seat)


def _own(step: Callable) -> Callable:
    """``step`` for an event recording an action of ``e.seat``'s own, which ends its run of
    timeouts (R30), unless it is the default decision its timeout just made for it."""
    def own_step(state: MatchState, e: ev.Event) -> MatchState:
        state = step(state, e)
        if state.defaulting is e.seat:
            return copy_with(state, defaulting=None)
        if state.timeouts[e.seat.index]:
            return copy_with(state, timeouts=with_seat(state.timeouts, e.seat, 0))
        return state
    return own_step


def _unchanged(state: MatchState, e: ev.Event) -> MatchState:
    # The round-ending event that follows carries the outcome.
    return state


_STEPS: dict[type[ev.Event], Callable] = {
    ev.MatchCreated: _match_created,
    ev.PlayerJoined: _player_joined,
    ev.RoundDealt: _round_dealt,
    ev.RedealProposed: _own(_ask(QuestionKind.REDEAL, lambda s: s.round.value)),
    ev.RedealAccepted: _own(_redeal_accepted),
    ev.RedealRejected: _own(_answer_closes),
    ev.CardPlayed: _own(_card_played),
    ev.TrickWon: _trick_settled,
    ev.TrickSpoiled: _trick_settled,
    ev.RaiseProposed: _own(_ask(QuestionKind.RAISE, lambda s: s.rules.next_value(s.round.value))),
    ev.RaiseAccepted: _own(_raise_accepted),
    ev.RaiseRejected: _own(_unchanged),
    ev.RemainderDeclared: _own(_ask(QuestionKind.REMAINDER, lambda s: s.rules.target)),
    ev.RemainderAccepted: _own(_remainder_accepted),
    ev.RemainderRejected: _own(_unchanged),
    ev.Folded: _own(_unchanged),
    ev.RoundWon: _round_over,
    ev.RoundVoid: _round_over,
    ev.MatchWon: _match_won,
    ev.TurnTimedOut: _turn_timed_out,
    ev.MatchCancelled: _match_cancelled,
}
