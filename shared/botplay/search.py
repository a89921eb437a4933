"""The search bot: information-set Monte Carlo tree search (ISMCTS) from one seat's view.

Each iteration deals the cards this seat has not seen at random (``knowledge.sample``),
then walks one tree shared by every deal, applying each move with the engine's step
(``shared.rules.step``) until the round ends, and values the scores it leaves by the
chance of winning the match (``outcome``). The tree holds this seat's information sets:
its moves are chosen by UCB, and a move not possible in a deal is skipped, each judged
against the deals in which it was possible (UCB on availability counts).

The opponent is played, not searched: in each deal it is a player drawn at random (a raise
rate, an answering threshold, a card sense: the playouts' players), who sees its own cards
and the table only. Its answers to this seat's own questions follow the match's record of
how often it refused them (``memory``): it refuses that share of its weakest hands. So no
fixed opponent is assumed, and none plays as if it saw this seat's hand. A tree that searched
the opponent's moves too (one node per move whatever its cards: single-observer ISMCTS) let
the opponent choose knowing this seat's hand, the same in every deal, and lost to this one on
the same 1,000 deals of five opponents (docs/bot.md). Past the tree, playouts draw both
players afresh.

A sharp search (``Budget.sharp``, the expert level) expects an opponent as strong as itself,
as the duels with the plain search showed worth it (docs/bot.md): its drawn players all play
their cards with sense, declare their remainder on strong cards (the odds of the round above a
threshold drawn per player) and accept any remainder (refusing one loses the match, R18); and it
values the rounds after this one as even (``outcome.EVEN``), where the plain search expects to
win 60 % of them, and so waits for surer cards before staking the match than an even opponent
lets it.

Raises, bluffs, answers and folds all come from the search: there is no threshold on the
cards anywhere in the choice of the bot's own move.
"""
from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from shared.rules import (
    DECK,
    Accept,
    DeclareRemainder,
    MatchState,
    PlayCard,
    PlayerAction,
    QuestionKind,
    Raise,
    Reject,
    RemainderReject,
    Seat,
    Status,
    legal_actions,
    owes,
    step,
    strength,
)
from shared.rules.state import RoundState

from .knowledge import read
from .memory import NO_EVIDENCE, Memory, Record
from .outcome import EDGE, EVEN, match_chance
from .zoo import Action, Strategy, View, hand_strength, needs_me, odds

SEARCHED = (PlayCard, Raise, DeclareRemainder, Accept, Reject)  # no fold (a reject or a later fold is never worse)


@dataclass(frozen=True)
class Budget:
    """How long one decision may search: whichever of ``iterations`` and ``seconds`` runs out
    first (iterations make a decision reproducible; seconds keep it inside the clock)."""

    iterations: int
    seconds: float
    exploration: float = 0.7
    sharp: bool = False  # whether it expects sharp players (the module's docstring)


class _Node:
    __slots__ = ("children", "visits", "reward", "available")

    def __init__(self) -> None:
        self.children: dict[tuple, _Node] = {}
        self.visits = 0
        self.reward = 0.0  # summed over visits, for the seat whose move led here
        self.available = 1  # how many visits of the parent could have chosen this move


class _OneDeck:
    """The deal after the round: never played (the search stops at the round's end)."""

    commitment = None

    def deck(self, round_number: int) -> tuple[str, ...]:
        return DECK

    def first_dealer(self) -> Seat:
        return Seat.A

    def reveal(self) -> None:
        return None


_DEAL = _OneDeck()


Decide = Callable[[View, Budget, "int | str", Callable[[], float], Record], Action]


def search_strategy(
    budget: Budget, seed: int | str = 0, clock: Callable[[], float] = time.perf_counter, decide: Decide | None = None,
    memory: Memory | None = None,
) -> Strategy:
    """A strategy searching each decision within ``budget``; ``seed`` fixes its random draws,
    so one view, one seed and one record give one decision. ``decide``: the search (ISMCTS's
    ``best_action`` unless another is given, e.g. :func:`shared.botplay.pimc.pimc_action`).
    ``memory``: the match's record so far (a strategy kept for a whole match keeps its own)."""
    search, memory = decide or best_action, memory or Memory()

    def choose(view: View) -> Action | None:
        if not needs_me(view):
            return None
        memory.learn(view)
        action = search(view, budget, seed, clock, memory.record)
        memory.acted(view, action)
        return action

    return choose


def best_action(
    view: View, budget: Budget, seed: int | str, clock: Callable[[], float] = time.perf_counter,
    record: Record = NO_EVIDENCE,
) -> Action:
    """The move the search finds best for the seat of ``view``, one of its legal actions, the
    opponent answering its questions as ``record`` says it does."""
    moves = candidates(view)
    if len(moves) == 1:
        return moves[0]
    root = grow(read(view), budget, decision_rng(view, seed), clock, record)
    return most_visited(root, moves)


def candidates(view: View) -> list[Action]:
    """The legal actions of ``view`` a search chooses among (an answer only, when asked)."""
    moves = [a for a in view["legal_actions"] if a["type"] in _SEARCHED_TYPES]
    if view["round"]["pending"] is not None:
        moves = [a for a in moves if a["type"] in ("accept", "reject")]
    return moves


def decision_rng(view: View, seed: int | str) -> random.Random:
    """The random draws of one decision: fixed by the seed and what the view shows publicly."""
    return random.Random(repr((seed, _public_key(view))))


def most_visited(root: _Node, moves: list[Action]) -> Action:
    visits = {key: node.visits for key, node in root.children.items()}
    return max(moves, key=lambda a: visits.get(move_key(a), -1))


_SEARCHED_TYPES = frozenset(kind.action for kind in SEARCHED)


def _public_key(view: View) -> tuple:
    """What of the view the decision may depend on (not the clock, the version or the names)."""
    rnd = view["round"]
    return (view["you"], view["scores"]["A"], view["scores"]["B"], repr(sorted(view["rules"].items())),
            rnd["number"], rnd["dealer"], tuple(rnd["hand"]), repr(rnd["tricks"]), repr(rnd["pending"]),
            rnd["value"], rnd["remainder_round"], repr(view["legal_actions"]))


class Deals(Protocol):
    """What a search draws its deals from: a seat's ``Knowledge``, or one fixed deal (PIMC's)."""

    me: Seat
    template: MatchState

    def sample(self, rng: random.Random) -> MatchState: ...


def grow(
    knowledge: Deals, budget: Budget, rng: random.Random, clock: Callable[[], float], record: Record = NO_EVIDENCE,
) -> _Node:
    """The search tree after ``budget``: one iteration per sampled deal."""
    root, started = _Node(), clock()
    exploration, seats = budget.exploration * _swing(knowledge), _Seats(knowledge.me, record, budget.sharp)
    for done in range(budget.iterations):
        if done % 8 == 0 and clock() - started > budget.seconds:
            break
        _iterate(root, knowledge.sample(rng), seats, rng, exploration)
    return root


@dataclass(frozen=True)
class _Seats:
    """Whose search it is, and how its opponent answers its questions."""

    me: Seat
    record: Record
    sharp: bool = False  # the players it draws are a sharp search's (the module's docstring)

    def answer(self, state: MatchState, seat: Seat) -> PlayerAction | None:
        """The opponent's answer to my question, as the record says (None: no question of mine is put to it)."""
        pending = state.round.pending
        if seat is self.me or pending is None or pending.by is not self.me or pending.kind is QuestionKind.REDEAL:
            return None
        return Accept(seat) if self.record.accepts(state.round.hands[seat.index]) else Reject(seat)


def _swing(knowledge: Deals) -> float:
    """What a two-point round is worth here, in match chance: the scale of the rewards, so
    that exploring weighs the same at 0-0 (where a round moves the chance little) as at
    10-10 (where it decides the match)."""
    state, me = knowledge.template, knowledge.me
    mine, theirs, target = state.scores[me.index], state.scores[me.other.index], state.rules.target
    return max(0.02, match_chance(mine + 2, theirs, target) - match_chance(mine, theirs + 2, target))


def _iterate(root: _Node, state: MatchState, seats: _Seats, rng: random.Random, exploration: float) -> None:
    """One deal: select down the tree (the opponent moving as a player drawn for this deal),
    add one node, play the round out, credit the path."""
    number, node, path, me = state.round.number, root, [], seats.me
    theirs = _style(rng, seats)
    while not _over(state, number):
        seat = owes(state)
        if seat is me:
            moves = [(_key(action), action) for action in _moves(state, seat)]
        else:
            move = seats.answer(state, seat) or _playout_move(state, seat, theirs, rng)
            moves = [(_key(move), move)]
        untried = [move for move in moves if move[0] not in node.children]
        for key, _ in moves:
            if key in node.children:
                node.children[key].available += 1
        if untried:
            key, action = untried[rng.randrange(len(untried))]
            node.children[key] = node = _Node()
            state = step(state, action, _DEAL).state
            path.append((node, seat))
            state = _playout(state, number, seats, rng)
            break
        log_n = {key: math.log(node.children[key].available) for key, _ in moves}
        key, action = max(moves, key=lambda move: _ucb(node.children[move[0]], log_n[move[0]], exploration))
        node = node.children[key]
        state = step(state, action, _DEAL).state
        path.append((node, seat))
    mine = _value(state, me, EVEN if seats.sharp else EDGE)
    for visited, seat in path:
        visited.visits += 1
        visited.reward += mine if seat is me else 1.0 - mine


def _ucb(node: _Node, log_available: float, exploration: float) -> float:
    return node.reward / node.visits + exploration * math.sqrt(log_available / node.visits)


def _over(state: MatchState, number: int) -> bool:
    return state.round is None or state.round.number != number


def _moves(state: MatchState, seat: Seat) -> list[PlayerAction]:
    """The moves the tree tries for this seat."""
    pending = state.round.pending
    if pending is not None:
        return [a for a in legal_actions(state, seat) if type(a) is Accept or type(a) is Reject]
    return [a for a in legal_actions(state, seat) if type(a) in _SEARCHED_KINDS]


_SEARCHED_KINDS = frozenset(SEARCHED)


def _key(action: PlayerAction) -> tuple:
    """A move as the tree knows it, whoever's it is (whose turn it is follows from the moves before:
    each move the opponent's drawn player makes is one node, whatever cards a deal gives it)."""
    return (action.action, getattr(action, "card", None))


def move_key(action: Action) -> tuple:
    """A view's legal action as the tree knows it (see ``_key``)."""
    return (action["type"], action.get("card"))


def _value(state: MatchState, me: Seat, edge: float) -> float:
    """My chance of winning the match once the round is over, winning each later round with the chance ``edge``."""
    if state.status is Status.FINISHED:
        return 1.0 if state.winner is me else 0.0
    scores = state.scores
    return match_chance(scores[me.index], scores[me.other.index], state.rules.target, edge)


def _playout(state: MatchState, number: int, seats: _Seats, rng: random.Random) -> MatchState:
    """The round played out by two players drawn at random: a raise rate and an answering
    threshold each, and a card sense (the cheapest winning card, or any); the opponent answers
    my questions as the record says."""
    styles = {seat: _style(rng, seats) for seat in (Seat.A, Seat.B)}
    while not _over(state, number):
        seat = owes(state)
        move = seats.answer(state, seat) or _playout_move(state, seat, styles[seat], rng)
        state = step(state, move, _DEAL).state
    return state


Style = tuple[float, float, bool, float]
"""A player drawn at random: raise rate, answering threshold, card sense, and the odds of the
round above which it declares its remainder (``NEVER`` but for a sharp search's players)."""
NEVER = 2.0
SENSIBLE = 0.7  # the share of drawn players who play their cards with sense (all, for a sharp search)


def _style(rng: random.Random, seats: _Seats) -> Style:
    drawn = rng.random() * 0.3, rng.random(), rng.random() < (1.0 if seats.sharp else SENSIBLE)
    return (*drawn, 0.6 + 0.4 * rng.random() if seats.sharp else NEVER)


def _playout_move(state: MatchState, seat: Seat, style: Style, rng: random.Random) -> PlayerAction:
    raise_rate, threshold, sensible, all_in = style
    rnd = state.round
    hand = rnd.hands[seat.index]
    if rnd.pending is not None:
        power = hand_strength(hand) if hand else 0.5
        staked = rnd.pending.kind is QuestionKind.REMAINDER and state.rules.remainder_reject is RemainderReject.MATCH
        if staked and all_in != NEVER:
            return Accept(seat)  # rejecting it would lose the match (R18)
        return Accept(seat) if power >= threshold else Reject(seat)
    moves = legal_actions(state, seat)
    may_ask = moves[len(hand)].action == "raise"  # after the cards: raise, then remainder, when requests are open
    if all_in != NEVER and may_ask and _odds(rnd, seat, hand) > all_in:
        return moves[len(hand) + 1]
    if rng.random() < raise_rate and may_ask:
        return moves[len(hand)]
    if not sensible:
        return moves[rng.randrange(len(hand))]
    trick = rnd.tricks[-1] if rnd.tricks else None
    ordered = sorted(hand, key=strength)
    if trick is None or trick.complete:
        return PlayCard(seat, ordered[-1] if rng.random() < 0.6 else ordered[rng.randrange(len(ordered))])
    led = strength(trick.cards[seat.other.index])
    beating = [card for card in ordered if strength(card) > led]
    return PlayCard(seat, beating[0] if beating else ordered[0])


def _odds(rnd: RoundState, seat: Seat, hand: Sequence[str]) -> float:
    """The seat's chance of taking the round, roughly, as ``zoo.outlook`` reads it from a view."""
    lead = sum((t.winner is seat) - (t.winner is seat.other) for t in rnd.tricks if t.complete)
    return odds(lead, hand_strength(hand))


def describe(budget: Budget) -> dict[str, Any]:
    return {"iterations": budget.iterations, "seconds": budget.seconds, "exploration": budget.exploration,
            "sharp": budget.sharp}
