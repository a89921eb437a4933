"""Matches of every ending, played through the command service, for the archive's tests."""
from __future__ import annotations

import random

from services.api.app import Matches, act, create, join
from services.api.players import Player
from shared.rules import Rules
from tests.match_support import play_through_service


def play_mixed_matches(service: Matches, players: tuple[Player, Player], count: int, seed: int = 7) -> dict[str, str]:
    """``count`` matches of every ending (won on score, rated; resigned late, aborted, cancelled, a private
    one cancelled) and some still being played; each id and how it went."""
    rng, made = random.Random(seed), {}
    alice, bob = players
    for n in range(count):
        kind = ("won", "resigned", "aborted", "cancelled", "private", "playing")[n % 6]
        if kind == "won":
            match_id = play_through_service(service, rng, players=players, rated=True)
        elif kind in ("resigned", "playing"):
            match_id = play_through_service(service, rng, stop_after=rng.randint(8, 30), players=players)
            over = service.folds.get(match_id).state.status.over
            if kind == "resigned" and not over:
                act(service, match_id, rng.choice(players), {"type": "resign"})
            kind = "won" if kind == "playing" and over else kind  # played to its end within the actions
        elif kind == "aborted":
            match_id = create(service, alice, {"rules": Rules(), "first_dealer": None}).match_id
            join(service, match_id, bob)
            act(service, match_id, bob, {"type": "resign"})
        else:
            match_id = create(service, alice, {"rules": Rules(), "private": kind == "private"}).match_id
            act(service, match_id, alice, {"type": "cancel"})
        made[match_id] = kind
    return made
