"""The bot service's strategies: the zoo of fixed players and the search levels live in
``shared.botplay`` (the terminal's duels play them too); this names what the service runs."""
from __future__ import annotations

from shared.botplay.zoo import ZOO, Action, Strategy, View, heuristic_strategy, needs_me, random_strategy

STRATEGIES = ZOO

__all__ = ["STRATEGIES", "Action", "Strategy", "View", "heuristic_strategy", "needs_me", "random_strategy"]
