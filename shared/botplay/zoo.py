"""Fixed strategies: each picks its action from nothing but its own seat's view (the API's
match view), the same way every time. They are the opponents the search is measured
against, and the easy and medium levels.

A strategy returns one of ``view["legal_actions"]``, or None when the bot should wait
(it is not its turn and nothing is asked of it: folding or proposing a redeal is always
possible, but never urgent).
"""
from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from shared.rules import strength

View = dict[str, Any]
Action = dict[str, Any]
Strategy = Callable[[View], Action | None]

TOP = strength("7S")  # a 7, the highest rank


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


def by_type(view: View) -> dict[str, list[Action]]:
    legal: dict[str, list[Action]] = {}
    for action in view["legal_actions"]:
        legal.setdefault(action["type"], []).append(action)
    return legal


def tricks_won(view: View) -> tuple[int, int]:
    me = view["you"]
    done = [t for t in view["round"]["tricks"] if t["winner"] or t["spoiled"]]
    mine = sum(t["winner"] == me for t in done)
    theirs = sum(t["winner"] not in (None, me) for t in done)
    return mine, theirs


def hand_strength(hand: Sequence[str]) -> float:
    """0 (hopeless) .. 1 (unbeatable): how likely these cards take the tricks still to play."""
    if not hand:
        return 0.0
    return sum(strength(card) for card in hand) / (TOP * len(hand))


def outlook(view: View) -> float:
    """My chance of taking this round, roughly: tricks so far and the cards I hold."""
    mine, theirs = tricks_won(view)
    return odds(mine - theirs, hand_strength(view["round"]["hand"]))


def odds(lead: int, cards: float) -> float:
    """The chance of taking the round ``lead`` tricks ahead with cards of strength ``cards`` (0..1), roughly."""
    return max(0.0, min(1.0, 0.5 + 0.3 * lead + 0.6 * (cards - 0.5)))


def behind(view: View) -> bool:
    me = view["you"]
    other = "B" if me == "A" else "A"
    return view["scores"][me] < view["scores"][other]


def card_to_play(view: View, plays: list[Action]) -> Action:
    """The cheapest card that does the job: take the trick if it can, else throw the weakest."""
    by_strength = sorted(plays, key=lambda a: strength(a["card"]))
    rnd = view["round"]
    current = rnd["tricks"][-1] if rnd["tricks"] else None
    led = None
    if current and not (current["winner"] or current["spoiled"]):
        led = next(card for card in current["cards"].values() if card)
    if led is None:
        # Leading: the strongest card wins tricks; keep it when the round is already safe.
        mine, _ = tricks_won(view)
        return by_strength[0] if mine >= 2 else by_strength[-1]
    beating = [a for a in by_strength if strength(a["card"]) > strength(led)]
    tying = [a for a in by_strength if strength(a["card"]) == strength(led)]
    if beating:
        return beating[0]  # the cheapest card that takes the trick
    if tying and tricks_won(view)[0] > 0:
        return tying[0]  # a spoiled trick counts for the first-trick winner (R20)
    return by_strength[0]  # the trick is lost: throw the weakest


def thresholds(raise_above: float, accept_from: float, remainder_above: float = 0.9) -> Strategy:
    """A player of fixed thresholds on ``outlook``: raises above one, accepts from another,
    declares its remainder when nearly sure and behind; plays cards by ``card_to_play``."""

    def choose(view: View) -> Action | None:
        if not needs_me(view):
            return None
        legal, rnd = by_type(view), view["round"]
        odds = outlook(view)
        pending = rnd["pending"]
        if pending is not None:
            if pending["type"] == "redeal":
                keep = hand_strength(rnd["hand"]) > 0.5
                return (legal["reject"] if keep else legal["accept"])[0]
            remainder = pending["type"] == "remainder" and accept_from >= 0  # "accept anything" takes it too
            needed = max(accept_from, 0.75) if remainder else accept_from
            return (legal["accept"] if odds >= needed else legal["reject"])[0]
        if "remainder" in legal and odds > remainder_above and behind(view):
            return legal["remainder"][0]
        if "raise" in legal and odds > raise_above:
            return legal["raise"][0]
        return card_to_play(view, legal["play"])

    return choose


heuristic_strategy = thresholds(raise_above=0.72, accept_from=0.4)
"""Answer by the odds, raise when ahead, play the cheapest card that does the job (medium)."""

tight_strategy = thresholds(raise_above=0.85, accept_from=0.6, remainder_above=0.97)
"""Raises only on very strong cards and answers a raise only on good ones."""

always_raiser = thresholds(raise_above=-1.0, accept_from=-1.0, remainder_above=2.0)
"""Raises whenever it may and accepts every question (never a remainder of its own)."""

calling_station = thresholds(raise_above=2.0, accept_from=-1.0, remainder_above=2.0)
"""Never raises, accepts every question."""


def all_in(view: View) -> Action | None:
    """Declares its remainder whenever it may and accepts every question: each match one round
    on the cards (R18: the remainder cannot be refused but by losing the match)."""
    if not needs_me(view):
        return None
    legal = by_type(view)
    if view["round"]["pending"] is not None:
        return legal["accept"][0]
    return legal["remainder"][0] if "remainder" in legal else card_to_play(view, legal["play"])


ZOO: dict[str, Callable[[random.Random], Strategy]] = {
    "random": random_strategy,
    "heuristic": lambda rng: heuristic_strategy,
    "raiser": lambda rng: always_raiser,
    "station": lambda rng: calling_station,
    "tight": lambda rng: tight_strategy,
    "allin": lambda rng: all_in,
}
"""The fixed players, by name: each built from a random source (only ``random`` uses it)."""
