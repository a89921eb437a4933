"""What a round's end is worth: the chance of winning the match from the scores it leaves.

A search plays each round to its end, never the whole match; the scores it leaves are
valued by the chance of reaching the target first if every later round were worth 1, 2 or
6 points (``ROUND_POINTS``) and won by the searching seat with the chance ``EDGE``. So a
point matters more the nearer either seat is to the target, and a round that wins the
match is worth 1 whatever its points. The edge is the searcher's confidence in its own
play: with even odds (0.5) every gamble on the whole match at better than even looks
good, though a better player wins more surely by playing the rounds out.
"""
from __future__ import annotations

from functools import cache

ROUND_POINTS = ((1, 0.7), (2, 0.22), (6, 0.08))  # a later round's points and how often
EDGE = 0.6  # the chance the searching seat wins a later round
EVEN = 0.5  # ... against an opponent as strong as itself (what a sharp search expects)


@cache
def match_chance(mine: int, theirs: int, target: int, edge: float = EDGE) -> float:
    """The chance of winning the match from ``mine``-``theirs`` (0..1)."""
    if mine >= target:
        return 1.0
    if theirs >= target:
        return 0.0
    return sum(
        weight * (edge * match_chance(min(mine + points, target), theirs, target, edge)
                  + (1 - edge) * match_chance(mine, min(theirs + points, target), target, edge))
        for points, weight in ROUND_POINTS
    )
