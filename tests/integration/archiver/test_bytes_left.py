"""What an archived match still costs Redis (MEMORY USAGE), printed: not a timed or sized assertion.

300 finished matches among 20 players, archived; every key that still holds something of
them is measured: the index entries, the lobby's finished list, each player's finished list
(and the cold records they moved to) and ledger of counted matches, the scoreboard's set of
counted matches; and, rated, the players' rating histories (and their cold parts), fences and
the leaderboard; every byte must stay within ``BUDGET``.
"""
from __future__ import annotations

import itertools
import random

import pytest
import redis

from shared import keys
from shared.archive.archiving import Archiver
from shared.archive.memory import InMemoryArchive
from shared.readmodels.cold_lists import cold_keys
from shared.readmodels.rating_store import RedisRatings
from tests.archiver_support import ENDED_AT, HOUR_MS, finished_match

MATCHES, PLAYERS = 300, 20
BUDGET = 300  # bytes of Redis an archived match may still cost, every key counted


def _usage(client: redis.Redis, names: list[str]) -> int:
    return sum(client.memory_usage(name, samples=0) or 0 for name in names)


@pytest.mark.parametrize("rated", [False, True], ids=["unrated", "rated"])
def test_bytes_left_per_archived_match(redis_client: redis.Redis, rated: bool) -> None:
    rng = random.Random(7)
    players = [f"player{n:010d}" for n in range(PLAYERS)]  # the server's shape: 16 characters
    pairs = list(itertools.combinations(players, 2))
    match_ids = [f"match{n:07d}" for n in range(MATCHES)]
    for n, match_id in enumerate(match_ids):
        a, b = rng.choice(pairs)
        finished_match(redis_client, match_id, seed=n % 50, players=((a, a), (b, b)), rated=rated)
    shared = [keys.lobby("finished"), keys.lobby("cancelled"), keys.scoreboard_matches(), keys.scoreboard_archived(),
              *(keys.player_matches(p, s) for p in players for s in ("finished", "cancelled")),
              *(keys.player_results(p) for p in players)]
    ratings = [*(key for p in players for key in (keys.player_ratings(p), keys.player_ratings_cold(p),
                                                  keys.player_ratings_fence(p))),
               *keys.ratings_global_keys(0)]
    served = RedisRatings(redis_client)
    ratings_before = ({p: served.rating(p) for p in players}, served.results(), served.leaderboard(0, PLAYERS))
    assert bool(ratings_before[1]) == rated
    slot_keys = [key.decode() for key in redis_client.scan_iter(match="truc:{m:*", count=1000)]
    before = (_usage(redis_client, slot_keys) + _usage(redis_client, shared) + _usage(redis_client, ratings)) / MATCHES
    archiver = Archiver(redis_client, InMemoryArchive(), HOUR_MS, clock=lambda: ENDED_AT + 2 * HOUR_MS)
    assert {outcome.result for outcome in archiver.archive_due(limit=MATCHES)} == {"archived"}
    left = [key.decode() for key in redis_client.scan_iter(match="truc:{m:*", count=1000)]
    assert sorted(left) == sorted(keys.match_archived(m) for m in match_ids)
    index, lists = _usage(redis_client, left) / MATCHES, _usage(redis_client, shared + ratings) / MATCHES
    cold = [key for listed in shared[:2] + shared[4:4 + 2 * PLAYERS] for key in cold_keys(redis_client, listed)]
    lists += _usage(redis_client, cold) / MATCHES
    families = {"lobby": shared[:2], "counted set": shared[2:4], "players' lists": shared[4:4 + 2 * PLAYERS],
                "cold lists": cold, "ledgers": shared[4 + 2 * PLAYERS:], "ratings": ratings}
    parts = ", ".join(f"{name} {_usage(redis_client, names) / MATCHES:.0f}" for name, names in families.items())
    print(f"\n{'rated' if rated else 'unrated'}: Redis bytes per finished match before archiving: {before:.0f}; "
          f"after: {index + lists:.0f} "
          f"(index entry {index:.0f}; {parts})")
    assert index + lists < min(before, BUDGET)
    assert ({p: served.rating(p) for p in players}, served.results(), served.leaderboard(0, PLAYERS)) == ratings_before
    assert not any(redis_client.exists(keys.player_ratings(p)) for p in players)  # every entry in a cold part
