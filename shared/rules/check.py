"""Is this action legal now? One answer, used by both ``decide`` and ``legal_actions``.

The service's own commands (a timeout, a lobby expiry) are checked here too, so that
``decide`` refuses whatever it refuses in one place.
"""
from __future__ import annotations

from .clock import deadline, lobby_deadline, owes
from .commands import (
    Accept,
    Cancel,
    DeclareRemainder,
    ExpireLobby,
    Fold,
    PlayCard,
    PlayerAction,
    ProposeRedeal,
    Raise,
    Reject,
    Resign,
    TimeOut,
)
from .rule_errors import N_, RuleCode, RuleError
from .state import MatchState, QuestionKind, RoundState, Seat, Status
from .variants import RedealProposer

_REQUESTS = (Raise, DeclareRemainder)
Checked = PlayerAction | TimeOut | ExpireLobby
_PENDING = {
    QuestionKind.RAISE: N_("A raise question is waiting for an answer: only accept, reject or fold now."),
    QuestionKind.REMAINDER: N_("A remainder question is waiting for an answer: only accept, reject or fold now."),
    QuestionKind.REDEAL: N_("A redeal question is waiting for an answer: only accept, reject or fold now."),
}


def refusal(state: MatchState, command: Checked) -> RuleError | None:
    """The refusal for ``command``, the first in R27's order (section 12's codes for resign,
    cancel and the service's commands); None if it is legal."""
    if state.status.over:
        return _over(state)
    if isinstance(command, (Cancel, ExpireLobby)):
        return _lobby_refusal(state, command)
    if state.status is not Status.PLAYING or state.round is None:
        return RuleError(RuleCode.NOT_STARTED, "The match has not started: it waits for a second player.")
    if isinstance(command, TimeOut):
        return _timeout_refusal(state, command)
    rnd = state.round
    if isinstance(command, (Fold, Resign)):
        return None  # R19, R31: at any moment of a round, question pending or not
    if _is_answer(rnd, command):
        return _answer_refusal(rnd, command)
    if rnd.pending is not None:
        return RuleError(RuleCode.QUESTION_PENDING, _PENDING[rnd.pending.kind])
    if isinstance(command, ProposeRedeal):
        return _redeal_refusal(state, command)
    if command.seat is not rnd.turn:
        return RuleError(RuleCode.NOT_YOUR_TURN, "It is {seat}'s turn to play.", seat=rnd.turn.value)
    if isinstance(command, _REQUESTS):
        return _request_refusal(state, command)
    if isinstance(command, PlayCard) and command.card not in rnd.hand(command.seat):
        return RuleError(RuleCode.CARD_NOT_IN_HAND, "{card} is not a card in your hand.", card=repr(command.card))
    return None


def _is_answer(rnd: RoundState, command: PlayerAction) -> bool:
    if isinstance(command, (Accept, Reject)):
        return True
    # R13: for a pending remainder, "remainder" is a synonym of accept.
    return (
        isinstance(command, DeclareRemainder)
        and rnd.pending is not None
        and rnd.pending.kind is QuestionKind.REMAINDER
    )


def _answer_refusal(rnd: RoundState, command: PlayerAction) -> RuleError | None:
    if rnd.pending is None:
        return RuleError(RuleCode.NOTHING_TO_ANSWER, "There is no question to answer.")
    if rnd.pending.by is command.seat:
        return RuleError(RuleCode.OWN_QUESTION, "You cannot answer your own question.")
    return None


def _redeal_refusal(state: MatchState, command: ProposeRedeal) -> RuleError | None:
    rnd = state.round
    if not rnd.redeal_open:
        return RuleError(
            RuleCode.REDEAL_CLOSED,
            "A redeal can only be proposed once a round, before the first card or request.",
        )
    if state.rules.redeals_per_round == 0:
        return RuleError(RuleCode.NOT_ENTITLED, "This match is played without redeals.")
    if state.rules.redeal_proposer is RedealProposer.NON_DEALER and command.seat is rnd.dealer:
        return RuleError(RuleCode.NOT_ENTITLED, "In this match only the non-dealer may propose a redeal.")
    return None


def _request_refusal(state: MatchState, command: PlayerAction) -> RuleError | None:
    rnd = state.round
    if rnd.remainder_round:
        return RuleError(RuleCode.REMAINDER_ROUND, "No more raises: this is a remainder round.")
    if rnd.requested_this_turn:
        return RuleError(RuleCode.NOT_ENTITLED, "You already made a request this turn: play a card.")
    if state.rules.alternate_requests and rnd.last_accepted_by is command.seat:
        return RuleError(
            RuleCode.NOT_ENTITLED, "Your request was the last one accepted: the next must come from your opponent."
        )
    return None


def _over(state: MatchState) -> RuleError:
    if state.status is Status.CANCELLED:
        return RuleError(RuleCode.MATCH_OVER, "The match was cancelled: no more actions.")
    return RuleError(RuleCode.MATCH_OVER, "The match is over: no more actions.")


def _lobby_refusal(state: MatchState, command: Cancel | ExpireLobby) -> RuleError | None:
    """R32: only a waiting match is cancelled, by its creator or once its wait expired."""
    if state.status is Status.PLAYING:
        return RuleError(RuleCode.MATCH_STARTED, "The second player has joined: the match can no longer be cancelled.")
    if state.status is not Status.WAITING or (isinstance(command, Cancel) and command.seat is not Seat.A):
        return RuleError(RuleCode.NOT_STARTED, "Only the creator of a waiting match may cancel it.")
    if isinstance(command, ExpireLobby):
        due = lobby_deadline(state, command.lobby_seconds)
        if due is None or command.now_ms < due:
            return RuleError(RuleCode.NOT_DUE, "The match has not waited its full time in the lobby yet.")
    return None


def _timeout_refusal(state: MatchState, command: TimeOut) -> RuleError | None:
    """R29: a timeout is due once the deadline of the seat that owes has passed."""
    if owes(state) is not command.seat:
        return RuleError(RuleCode.NOT_DUE, "{seat} owes no decision now: nothing to time out.",
                         seat=command.seat.value)
    due = deadline(state)
    if due is None or command.now_ms < due:
        return RuleError(RuleCode.NOT_DUE, "{seat}'s deadline has not passed yet.", seat=command.seat.value)
    return None


def listed(state: MatchState, command: Checked) -> bool:
    """Whether ``permitted`` lists ``command`` for its seat: a quick yes for the usual command,
    a legal one (a playout's always is), before ``refusal`` walks R27 to name what is wrong.
    A no here is only a reason to ask ``refusal``."""
    kind = type(command)
    if kind is TimeOut or kind is ExpireLobby:
        return False
    cards, kinds = permitted(state, command.seat)
    if kind is PlayCard:
        return cards and command.card in state.round.hands[command.seat.index]
    return kind in kinds


def permitted(state: MatchState, seat: Seat) -> tuple[bool, tuple[type[PlayerAction], ...]]:
    """What ``refusal`` lets ``seat`` do now, without building a refusal for everything else:
    (may it play a card of its hand, the other action kinds it may send, in
    ``legal_actions``'s order). The same rules as ``refusal``, walked once for a seat rather
    than once per command: the legal actions are listed on every move of every playout.
    ``tests/unit/rules/test_legal_fast.py`` holds the two to the same answer."""
    status = state.status
    if status is not Status.PLAYING:
        return False, (Cancel,) if status is Status.WAITING and seat is Seat.A else ()
    rnd = state.round
    if rnd is None:
        return False, ()
    pending = rnd.pending
    if pending is not None:
        if pending.by is seat:
            return False, (Fold, Resign)
        if pending.kind is QuestionKind.REMAINDER:
            return False, (DeclareRemainder, Accept, Reject, Fold, Resign)
        return False, (Accept, Reject, Fold, Resign)
    redeal = rnd.redeal_open and state.rules.redeals_per_round != 0 and not (
        state.rules.redeal_proposer is RedealProposer.NON_DEALER and seat is rnd.dealer)
    if seat is not rnd.turn:
        return False, _OFF_TURN[redeal]
    requests = not rnd.remainder_round and not rnd.requested_this_turn and not (
        state.rules.alternate_requests and rnd.last_accepted_by is seat)
    return True, _ON_TURN[requests, redeal]


_OFF_TURN = {False: (Fold, Resign), True: (Fold, ProposeRedeal, Resign)}
_ON_TURN = {
    (requests, redeal): ((Raise, DeclareRemainder) if requests else ()) + (Fold,)
    + ((ProposeRedeal,) if redeal else ()) + (Resign,)
    for requests in (False, True) for redeal in (False, True)
}
