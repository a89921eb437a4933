"""Archiving a match in a test as the archiver does: the record put, the match's keys gone, its index entry left."""
from __future__ import annotations

import random
from typing import Any

from services.api.app import Matches, act, create, join
from services.api.players import Player
from shared.archive import Archive, ArchivedMatch
from shared.archive.index import IndexEntry
from shared.eventstore import RedisEventStore
from shared.keys import match_archived
from shared.keys.namespace import match_key
from shared.rules import Rules
from shared.seeds import SeedVault
from tests.match_support import play_through_service


def archive_match(client: Any, archive: Archive, match_id: str) -> IndexEntry:
    """Put the match to ``archive``, then in one step delete every key of its slot and write its entry."""
    events = tuple(RedisEventStore(client).read(match_id))
    match = ArchivedMatch(match_id, events, SeedVault(client).get(match_id), events[-1].at)
    archive.put(match)
    entry = IndexEntry(match.count, match.finished_at, match.head)
    doomed = [key for key in client.scan_iter(match=match_key(match_id, "*"), count=1000)]
    pipe = client.pipeline(transaction=True)
    for key in doomed:
        pipe.delete(key)
    pipe.set(match_archived(match_id), entry.encode())
    pipe.execute()
    return entry


def play_mixed_matches(service: Matches, players: tuple[Player, Player], count: int, seed: int = 7) -> dict[str, str]:
    """``count`` matches of every ending (won on score, resigned late, aborted, cancelled, a private one
    cancelled) and some still being played; each id and how it went."""
    rng, made = random.Random(seed), {}
    alice, bob = players
    for n in range(count):
        kind = ("won", "resigned", "aborted", "cancelled", "private", "playing")[n % 6]
        if kind == "won":
            match_id = play_through_service(service, rng, players=players)
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
