"""Perfect-information Monte Carlo (PIMC), the search's rival, kept for duels (``pimc:N``).

It deals ``WORLDS`` determinizations of the cards this seat has not seen (``knowledge.sample``,
the same as the search's), searches each apart with the search's own tree and playouts as if
those cards were seen, and plays the move most worlds chose (ties: the most visits over all
worlds). Its known weakness (strategy fusion: each world's search knows the opponent's cards, so
it plans moves that no single information set could) is what ISMCTS avoids; docs/bot.md gives
the duel that decided between them at the same number of iterations.
"""
from __future__ import annotations

import collections
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from shared.rules import MatchState, Seat

from .knowledge import read
from .memory import NO_EVIDENCE, Record
from .search import Budget, candidates, decision_rng, grow, most_visited, move_key
from .zoo import Action, View

WORLDS = 9


@dataclass(frozen=True)
class _World:
    """Knowledge whose every sample is one deal: a determinization, searched alone."""

    me: Seat
    template: MatchState
    world: MatchState

    def sample(self, rng: random.Random) -> MatchState:
        return self.world


def pimc_action(
    view: View, budget: Budget, seed: int | str, clock: Callable[[], float] = time.perf_counter,
    record: Record = NO_EVIDENCE,
) -> Action:
    """The move chosen in most of ``WORLDS`` deals, each searched as if its cards were seen."""
    moves = candidates(view)
    if len(moves) == 1:
        return moves[0]
    knowledge, rng = read(view), decision_rng(view, seed)
    share = Budget(max(1, budget.iterations // WORLDS), budget.seconds / WORLDS, budget.exploration)
    votes: collections.Counter = collections.Counter()
    visits: collections.Counter = collections.Counter()
    for _ in range(WORLDS):
        root = grow(_World(knowledge.me, knowledge.template, knowledge.sample(rng)), share, rng, clock, record)
        chosen = most_visited(root, moves)
        votes[move_key(chosen)] += 1
        for key, node in root.children.items():
            visits[key] += node.visits
    return max(moves, key=lambda a: (votes[move_key(a)], visits[move_key(a)]))
