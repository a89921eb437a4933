"""How a bot picks its action, from nothing but its own seat's view (the API's match view).

A strategy returns one of ``view["legal_actions"]``, or None when the bot should wait
(it is not its turn and nothing is asked of it: folding or proposing a redeal is
always possible, but never urgent).

A strategy never decides or folds a match itself: the server applies the action it sends
with the engine's step (``shared.rules.step``), and a strategy that searches plays its
playouts (a later issue) through that same step; ``bench.bots`` plays whole matches between
strategies so.
"""
from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from shared.rules import strength

View = dict[str, Any]
Action = dict[str, Any]
Strategy = Callable[[View], Action | None]

TOP = strength("7S")  # a 7, the highest rank
SECOND = strength("8S")


def needs_me(view: View) -> bool:
    """Is the bot on turn, or asked a question?"""
    rnd = view.get("round")
    if rnd is None or view["status"] != "playing":
        return False
    pending = rnd["pending"]
    if pending is not None:
        return pending["by"] != view["you"]
    return rnd["turn"] == view["you"]


def random_strategy(rng: random.Random) -> Strategy:
    """Any legal action but a redeal proposal or a resignation; folds and remainders rarely,
    so matches are played out."""

    def choose(view: View) -> Action | None:
        if not needs_me(view):
            return None
        actions = [a for a in view["legal_actions"] if a["type"] not in ("propose_redeal", "resign")]
        weights = [0.04 if a["type"] in ("fold", "remainder") else 1.0 for a in actions]
        return rng.choices(actions, weights)[0]

    return choose


def _by_type(view: View) -> dict[str, list[Action]]:
    legal: dict[str, list[Action]] = {}
    for action in view["legal_actions"]:
        legal.setdefault(action["type"], []).append(action)
    return legal


def _tricks_won(view: View) -> tuple[int, int]:
    me = view["you"]
    done = [t for t in view["round"]["tricks"] if t["winner"] or t["spoiled"]]
    mine = sum(t["winner"] == me for t in done)
    theirs = sum(t["winner"] not in (None, me) for t in done)
    return mine, theirs


def _strength(hand: list[str]) -> float:
    """0 (hopeless) .. 1 (unbeatable): how likely these cards take the tricks still to play."""
    if not hand:
        return 0.0
    return sum(strength(card) for card in hand) / (TOP * len(hand))


def _outlook(view: View) -> float:
    """My chance of taking this round, roughly: tricks so far and the cards I hold."""
    mine, theirs = _tricks_won(view)
    hand = _strength(view["round"]["hand"])
    return max(0.0, min(1.0, 0.5 + 0.3 * (mine - theirs) + 0.6 * (hand - 0.5)))


def heuristic_strategy(view: View) -> Action | None:
    """Answer by the odds, raise when ahead, play the cheapest card that does the job."""
    if not needs_me(view):
        return None
    legal, rnd = _by_type(view), view["round"]
    outlook = _outlook(view)
    pending = rnd["pending"]
    if pending is not None:
        return _answer(legal, pending["type"], outlook, view)
    if "remainder" in legal and outlook > 0.9 and _behind(view):
        return legal["remainder"][0]
    if "raise" in legal and outlook > 0.72:
        return legal["raise"][0]
    return _card(view, legal["play"])


def _behind(view: View) -> bool:
    me = view["you"]
    other = "B" if me == "A" else "A"
    return view["scores"][me] < view["scores"][other]


def _answer(legal: dict[str, list[Action]], question: str, outlook: float, view: View) -> Action:
    if question == "redeal":
        keep = _strength(view["round"]["hand"]) > 0.5
        return (legal["reject"] if keep else legal["accept"])[0]
    needed = 0.75 if question == "remainder" else 0.4
    return (legal["accept"] if outlook >= needed else legal["reject"])[0]


def _card(view: View, plays: list[Action]) -> Action:
    by_strength = sorted(plays, key=lambda a: strength(a["card"]))
    rnd = view["round"]
    current = rnd["tricks"][-1] if rnd["tricks"] else None
    led = None
    if current and not (current["winner"] or current["spoiled"]):
        led = next(card for card in current["cards"].values() if card)
    if led is None:
        # Leading: the strongest card wins tricks; keep it when the round is already safe.
        mine, _ = _tricks_won(view)
        return by_strength[0] if mine >= 2 else by_strength[-1]
    beating = [a for a in by_strength if strength(a["card"]) > strength(led)]
    tying = [a for a in by_strength if strength(a["card"]) == strength(led)]
    if beating:
        return beating[0]  # the cheapest card that takes the trick
    if tying and _tricks_won(view)[0] > 0:
        return tying[0]  # a spoiled trick counts for the first-trick winner (R20)
    return by_strength[0]  # the trick is lost: throw the weakest


STRATEGIES: dict[str, Callable[[random.Random], Strategy]] = {
    "random": random_strategy,
    "heuristic": lambda rng: heuristic_strategy,
}
