"""Play real (seeded, provably fair) matches through the command service, without HTTP."""
from __future__ import annotations

import random

from services.api.app import Matches, act, create, join, latest
from services.api.players import Player
from shared.rules import Rules, legal_actions
from shared.rules.playthrough import random_action

ALICE, BOB = Player("alice-id", "alice"), Player("bob-id", "bob")


def play_through_service(service: Matches, rng: random.Random, stop_after: int | None = None,
                         players: tuple[Player, Player] = (ALICE, BOB), rated: bool = False) -> str:
    """Create, join and play a match with random legal actions; its id. ``stop_after``: actions."""
    created = create(service, players[0], {"rules": Rules(), "first_dealer": None, "rated": rated})
    match_id = created.match_id
    join(service, match_id, players[1])
    seated = {"A": players[0], "B": players[1]}
    actions = 0
    while stop_after is None or actions < stop_after:
        state = latest(service, match_id).state
        if state.winner is not None:
            break
        action = random_action(state, rng)
        assert action in legal_actions(state, action.seat)
        act(service, match_id, seated[action.seat.value], action.body())
        actions += 1
    return match_id
