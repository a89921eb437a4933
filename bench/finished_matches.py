"""Matches played into a real Redis through the command service, and projected by the real projector.

Each match is created, joined and played action by action through the API's use cases
(:mod:`services.api.app`: the append script, the seed vault, one append per command as the
API makes them), between two players of a pool, then caught up once by the projector's own
``catch_up`` (views, lobby, scoreboard, the players' lists and ledgers, the archive's due
list). No HTTP and no worker process: the figures are about what is stored, not who stores it.
"""
from __future__ import annotations

import random
from typing import Any

from services.api.app import Matches, act, create, join
from services.api.players import Player
from services.projector.catchup.catching_up import catch_up
from services.projector.catchup.projector_context import ProjectorContext
from shared import keys
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels
from shared.readmodels.cold_lists import cold_keys
from shared.rules import Rules
from shared.rules.playthrough import random_action
from shared.seeds import SeedVault

# Every key of one match's slot (its hash tag): what the archiver deletes, and what it leaves.
SLOT_KEYS = (keys.match_events, keys.match_tokens, keys.match_refusals, keys.match_seed, keys.match_views,
             keys.match_unprojected, keys.match_catch_up, keys.match_archived)


class Table:
    """Plays matches into the Redis of ``client`` among ``players`` players, and projects them;
    ``rated``: every match rated (its players' ids of the server's shape, as their ratings keep them)."""

    def __init__(self, client: Any, players: int, seed: int = 1, rated: bool = False) -> None:
        self.client, self.rng, self.rated = client, random.Random(seed), rated
        self.players = [Player(f"pl{n:014d}", f"player {n}") for n in range(players)]
        store = RedisEventStore(client)
        self.service = Matches(store, lambda _: None, SeedVault(client))
        self.context = ProjectorContext(store, ReadModels(client))

    def play(self, finish: bool = True) -> str:
        """One match between two players of the pool, to its end (or to about half its events); its id."""
        seats = dict(zip("AB", self.rng.sample(self.players, 2)))
        options = {"rules": Rules(), "first_dealer": None, "rated": self.rated}
        match_id = create(self.service, seats["A"], options).match_id
        match = join(self.service, match_id, seats["B"])
        stop_at = self.rng.randint(30, 60) if not finish else None  # a finished match has ~90 events
        while match.state.winner is None and (stop_at is None or match.version < stop_at):
            action = random_action(match.state, self.rng)
            match = act(self.service, match_id, seats[action.seat.value], action.body())
        catch_up(match_id, self.context)
        return match_id

    def shared_keys(self, client: Any) -> dict[str, list[str]]:
        """The keys several matches share, by family: the finished lobby, the players' lists, the cold
        records archived matches' places moved to, the counted set, the ledgers and the ratings (the
        players' histories and their cold parts, their fences, the leaderboard and the fold's own)."""
        ids = [player.id for player in self.players]
        lobby = [keys.lobby("finished"), keys.lobby("cancelled")]
        lists = [keys.player_matches(p, s) for p in ids for s in ("finished", "cancelled")]
        return {
            "lobby": lobby,
            "players' lists": lists,
            "cold lists": [key for listed in lobby + lists for key in cold_keys(client, listed)],
            "counted set": [keys.scoreboard_matches()],
            "ledgers": [keys.player_results(p) for p in ids],
            "ratings": [*(key(p) for p in ids for key in (keys.player_ratings, keys.player_ratings_cold,
                                                          keys.player_ratings_fence)),
                        *keys.ratings_global_keys(0)],
        }


def memory_usage(client: Any, names: list[str]) -> int:
    """MEMORY USAGE of every key named (every element counted: ``SAMPLES 0``), summed; missing keys cost 0."""
    pipe = client.pipeline(transaction=False)
    for name in names:
        pipe.memory_usage(name, samples=0)
    return sum(found or 0 for found in pipe.execute())


def slot_bytes(client: Any, match_ids: list[str]) -> int:
    """What the matches' own keys cost (every key of their slots)."""
    return memory_usage(client, [key(match_id) for match_id in match_ids for key in SLOT_KEYS])


def used_memory(client: Any) -> int:
    """Redis's ``used_memory``: every byte its allocator holds for data and buffers."""
    return int(client.info("memory")["used_memory"])
