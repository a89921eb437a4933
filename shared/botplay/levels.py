"""The levels the service offers, and every strategy a duel may name.

easy is the random-leaning player, medium today's fixed heuristic, hard and expert the
search at about 100 ms and 1 s a decision on one core of the reference machine (the
iterations are the budget, so a decision is reproducible; the seconds are a cap that
holds on a loaded machine); expert's search expects sharp players (:mod:`.search`).
``search:N`` names a search of N iterations, for duels, ``sharp:N`` the expert's kind of
search, and ``pimc:N`` their rival of the same budget (:mod:`.pimc`).
"""
from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import replace

from .memory import Memory
from .pimc import pimc_action
from .search import Budget, search_strategy
from .zoo import ZOO, Strategy

LEVELS = ("easy", "medium", "hard", "expert")
DEFAULT_LEVEL = "medium"
BUDGETS = {
    "hard": Budget(iterations=900, seconds=0.15),
    "expert": Budget(iterations=9000, seconds=1.2, sharp=True),
}
_FIXED = {"easy": "random", "medium": "heuristic"}


class UnknownStrategyError(ValueError):
    """A name that is neither a level, a fixed player of the zoo, ``search:N``, ``sharp:N`` nor ``pimc:N``."""


def strategy_names() -> list[str]:
    return list(LEVELS) + sorted(ZOO)


def strategy_for(
    name: str, seed: int | str = 0, seconds: float | None = None, clock: Callable[[], float] = time.perf_counter,
    memory: Memory | None = None,
) -> Strategy:
    """The strategy ``name`` with its random draws fixed by ``seed``; ``seconds`` lowers the
    search's cap (a short clock), measured by ``clock`` (wall time by default). ``memory``: what
    a search has learnt of its opponent this match (by default it starts afresh and keeps its own)."""
    if name in _FIXED:
        name = _FIXED[name]
    if name in ZOO:
        return ZOO[name](random.Random(repr(seed)))
    budget = _budget(name)
    if seconds is not None:
        budget = replace(budget, seconds=min(budget.seconds, seconds))
    return search_strategy(budget, seed, clock, pimc_action if name.startswith("pimc:") else None, memory)


def _budget(name: str) -> Budget:
    if name in BUDGETS:
        return BUDGETS[name]
    kind, _, iterations = name.partition(":")
    if kind in ("search", "pimc", "sharp") and iterations.isdigit() and int(iterations) > 0:
        return Budget(int(iterations), 60.0, sharp=kind == "sharp")
    raise UnknownStrategyError(name)


def search_seconds(name: str, turn_seconds: int) -> float | None:
    """The cap on one decision of ``name`` under a clock of ``turn_seconds``: a fifth of the
    turn, so the answer lands well inside it (None: no search, nothing to cap)."""
    if name not in BUDGETS:
        return None
    return min(BUDGETS[name].seconds, turn_seconds / 5)
