"""Helpers of the archiver's tests: finished matches stored long ago and projected, and what is left of them."""
from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from services.projector.catchup.catching_up import catch_up
from services.projector.catchup.projector_context import ProjectorContext
from shared import keys
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels
from tests.projector_support import Players, append_in_batches, random_match

ENDED_AT = 1_767_225_600_000  # 2026-01-01T00:00:00Z: when the stored matches were played
HOUR_MS = 3_600_000


def finished_match(client: Any, match_id: str, seed: int = 1, players: Players | None = None,
                   at: int = ENDED_AT, rated: bool = False) -> int:
    """Store a random match played to its end at ``at``, with a seed, and project it; its version."""
    store = RedisEventStore(client, clock=lambda: at)
    events = random_match(seed, match_id, players or ((f"{match_id}a", "alice"), (f"{match_id}b", "bob")))
    if rated:
        events[0] = replace(events[0], rated=True)
    append_in_batches(store, match_id, events, random.Random(seed))
    client.set(keys.match_seed(match_id), f"seed-of-{match_id}")
    return catch_up(match_id, ProjectorContext(RedisEventStore(client), ReadModels(client)))


def match_keys(client: Any, match_id: str) -> set[str]:
    """Every key of the match's slot (its hash tag), by name."""
    return {key.decode() for key in client.scan_iter(match=f"{keys.PREFIX}:{{m:{match_id}}}:*")}
