"""The bot's decisions, made in a pool of processes so a search never blocks its streams.

One worker decides one view: the match's level (``bot_level`` in the view; medium when it
has none) picks the strategy, the match and its version seed it, and the clock caps the
search: a search takes at most a fifth of the time left before the deadline, so a move
decided after a wait in the queue still lands well inside ``turn_seconds``.
"""
from __future__ import annotations

import multiprocessing
import os
import time
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from datetime import datetime
from typing import Any

from shared.botplay.levels import BUDGETS, DEFAULT_LEVEL, LEVELS, strategy_for
from shared.botplay.memory import NO_EVIDENCE, Memory, Record
from shared.parent_death import die_with_parent

SHARE_OF_TIME_LEFT = 0.2  # of the time left to the deadline, the most a search may take
LEAST_SECONDS = 0.02  # a search always looks this long, however late the view


def level_of(view: dict[str, Any]) -> str:
    level = view.get("bot_level")
    return level if level in LEVELS else DEFAULT_LEVEL


def seconds_allowed(view: dict[str, Any], level: str, now: float) -> float | None:
    """The cap on this decision's search (epoch seconds ``now``); None for a level that does not search."""
    if level not in BUDGETS:
        return None
    clock = view.get("clock") or {}
    cap = min(BUDGETS[level].seconds, view["rules"]["turn_seconds"] * SHARE_OF_TIME_LEFT)
    if clock.get("deadline"):
        left = datetime.fromisoformat(clock["deadline"].replace("Z", "+00:00")).timestamp() - now
        cap = min(cap, max(LEAST_SECONDS, left * SHARE_OF_TIME_LEFT))
    return cap


def decide(view: dict[str, Any], record: Record = NO_EVIDENCE) -> dict[str, Any] | None:
    """The bot's move for ``view`` (None: it waits), decided by the match's level, knowing of
    its opponent what ``record`` says (the bot's memory of the match)."""
    level = level_of(view)
    seed = f"{view.get('id')}:{view.get('version')}"
    return strategy_for(level, seed, seconds_allowed(view, level, time.time()), memory=Memory(record))(view)


def pool(workers: int | None = None) -> Executor:
    """The processes that decide (``BOT_WORKERS``, default one per core), each dying with the bot
    (started by its main thread, as it submits): a bot stopped or killed leaves none behind."""
    count = workers or int(os.environ.get("BOT_WORKERS") or 0) or os.cpu_count() or 1
    return ProcessPoolExecutor(count, mp_context=multiprocessing.get_context("spawn"), initializer=die_with_parent)


def submit(executor: Executor, view: dict[str, Any], record: Record = NO_EVIDENCE) -> Future:
    return executor.submit(decide, view, record)
