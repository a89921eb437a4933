"""Helpers of the projector's tests: random matches, stored; recounts and read-model snapshots.

``play_random_match`` always names its match "m" and its players p1/alice and p2/bob;
these helpers give each match its own id and players, and append its events the way the
API does (a few events per append).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import replace
from functools import cache
from typing import Any

from services.projector.catchup.catching_up import fresh_views
from shared import keys
from shared.codec import encode
from shared.eventstore.port import EventStore
from shared.rules.events import Event, MatchCreated, PlayerJoined
from shared.rules.playthrough import play_random_match

Players = tuple[tuple[str, str], tuple[str, str]]  # ((id, name) of A, (id, name) of B)
ALICE_AND_BOB: Players = (("p1", "alice"), ("p2", "bob"))


def random_match(seed: int, match_id: str = "m", players: Players = ALICE_AND_BOB) -> list[Event]:
    """The events of one random match played to its end, for ``match_id`` and ``players``."""
    return [_seated(event, match_id, players) for event in _played(seed)]


@cache
def _played(seed: int) -> tuple[Event, ...]:
    # Events are frozen: one playthrough per seed can be shared by every test.
    return tuple(play_random_match(random.Random(seed))[1])


def _seated(event: Event, match_id: str, players: Players) -> Event:
    (a_id, a_name), (b_id, b_name) = players
    if isinstance(event, MatchCreated):
        return replace(event, match_id=match_id, creator_id=a_id)
    if isinstance(event, PlayerJoined):
        return replace(event, player_id=b_id)
    return event


def append_in_batches(
    store: EventStore, match_id: str, events: list[Event], rng: random.Random, start: int = 0,
) -> list[int]:
    """Append ``events[start:]`` in batches of 1-4; the version after each append."""
    versions, position = [], start
    while position < len(events):
        batch = events[position:position + rng.randint(1, 4)]
        versions.append(store.append(match_id, [encode(e) for e in batch], position))
        position += len(batch)
    return versions


def store_matches(store: EventStore, count: int) -> list[str]:
    """Store ``count`` random matches m0, m1, ... (seed n, alice against bob); their ids."""
    match_ids = [f"m{n}" for n in range(count)]
    for n, match_id in enumerate(match_ids):
        append_in_batches(store, match_id, random_match(n, match_id), random.Random(n))
    return match_ids


def recount(store: EventStore, match_ids: Iterable[str]) -> dict[str, Counter]:
    """Each player's scoreboard counters, counted again from the streams of ``match_ids``."""
    totals: dict[str, Counter] = {}
    for match_id in match_ids:
        for result in fresh_views(store, match_id).results:
            totals.setdefault(result.player_id, Counter()).update({
                "matches_played": 1, "matches_won": int(result.won), "rounds_won": result.rounds_won,
                "points_for": result.points_for, "points_against": result.points_against,
            })
    return totals


def read_model_snapshot(client: Any, match_ids: Iterable[str], player_ids: Iterable[str]) -> dict[str, Any]:
    """Every read-model key of these matches and players, and the global indexes, as values."""
    snapshot: dict[str, Any] = {
        key: client.zrange(key, 0, -1, withscores=True)
        for key in [*(keys.lobby(status) for status in keys.LOBBY_STATUSES), keys.SCOREBOARD]
    }
    snapshot[keys.SCOREBOARD_MATCHES] = client.smembers(keys.SCOREBOARD_MATCHES)
    for match_id in match_ids:
        snapshot[keys.match_views(match_id)] = client.hgetall(keys.match_views(match_id))
        snapshot[keys.match_unprojected(match_id)] = client.get(keys.match_unprojected(match_id))
    for player_id in player_ids:
        snapshot[keys.player_results(player_id)] = client.hgetall(keys.player_results(player_id))
        snapshot[keys.player_totals(player_id)] = client.hgetall(keys.player_totals(player_id))
    return snapshot


def wipe_read_models(client: Any, match_ids: Iterable[str], player_ids: Iterable[str]) -> None:
    """Delete every read model (the streams and marks stay): the start of a clean rebuild."""
    doomed = [*(keys.lobby(status) for status in keys.LOBBY_STATUSES),
              keys.SCOREBOARD, keys.SCOREBOARD_MATCHES]
    doomed += [keys.match_views(match_id) for match_id in match_ids]
    for player_id in player_ids:
        doomed += [keys.player_results(player_id), keys.player_totals(player_id)]
    for key in doomed:  # one by one: on a cluster they live in different slots
        client.delete(key)
