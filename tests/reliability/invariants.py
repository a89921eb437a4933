"""What must hold after any fault: intact streams, read models equal to a clean fold, exact scores."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable
from typing import Any

from services.projector.catchup.catching_up import fresh_views
from shared.audit import audit_events
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels
from tests import projector_support

COUNTERS = ("matches_played", "matches_won", "rounds_won", "points_for", "points_against")


def audit_failures(client: Any, match_ids: Iterable[str]) -> dict[str, list]:
    """The audit's findings per match (gapless versions, hash chain, rules); empty when all hold."""
    store = RedisEventStore(client)
    reports = {match_id: audit_events(match_id, store.read(match_id)) for match_id in match_ids}
    return {match_id: report.failures for match_id, report in reports.items() if not report.ok}


def projected(client: Any, match_ids: Iterable[str]) -> bool:
    """True when the served read models of every match are at its stream's version."""
    store, models = RedisEventStore(client), ReadModels(client)
    return all(models.projected_version(match_id) == store.version(match_id) for match_id in match_ids)


def wait_projected(client: Any, match_ids: Iterable[str], timeout: float = 20.0) -> None:
    """Block until every match is projected to its last event; AssertionError after ``timeout``."""
    match_ids = list(match_ids)
    deadline = time.monotonic() + timeout
    while not projected(client, match_ids):
        assert time.monotonic() < deadline, "the projector did not catch up"
        time.sleep(0.05)


def read_model_differences(client: Any, match_ids: Iterable[str]) -> list[str]:
    """Matches whose served views or summary differ from a clean fold of their stream."""
    store, models = RedisEventStore(client), ReadModels(client)
    differ = []
    for match_id in match_ids:
        expected = fresh_views(store, match_id, models)
        served = {audience: models.view(match_id, audience) for audience in expected.views}
        if served != expected.views or models.summary(match_id) != expected.summary:
            differ.append(match_id)
    return differ


def recount(client: Any, match_ids: Iterable[str]) -> dict[str, Counter]:
    """Each player's scoreboard counters, counted again from the streams of ``match_ids``."""
    return projector_support.recount(RedisEventStore(client), match_ids)


def scoreboard_rows(client: Any, player_ids: Iterable[str]) -> dict[str, Counter]:
    """The served scoreboard counters of each player that has one."""
    models = ReadModels(client)
    rows = {player_id: models.player_row(player_id) for player_id in player_ids}
    return {player_id: Counter({k: row[k] for k in COUNTERS if row[k]}) for player_id, row in rows.items() if row}
