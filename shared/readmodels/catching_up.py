"""Catching one match's read models up with its event stream (the projector's work).

``catch_up`` folds *everything* new for its match (one job per event would cap
throughput), and every write it makes is idempotent, so running it twice, or two workers
on one match at once, changes nothing:

1. a finished match's results are recorded first (each counted once per player);
2. on a status change, the match is listed under its new lobby status;
3. the views, summary and checkpoint are written and the "unprojected" mark cleared, in
   one script that never moves a match backwards;
4. the lobby is settled on the stored summary (a slower worker may have relisted it).

A crash before step 3 leaves the mark set, so the sweep redoes the whole job. A match
whose stream holds an event this code cannot fold is parked instead of failing every job
(see :mod:`shared.readmodels.parked`): the events before it are projected, the rest wait.

While a rebuild runs (see :mod:`shared.readmodels.generations`), steps 1-4 are done first
for the generation being built, without clearing the mark, then for the one being served.
``rebuild_batch`` folds matches from version 0 into the new generation only (see
:mod:`shared.readmodels.rebuild`). The projector's RQ jobs call these; so do the CLI's
import and inline rebuild.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from shared.config import Config
from shared.connect import connect
from shared.eventstore import RedisEventStore
from shared.eventstore.port import EventStore
from shared.fold import PAGE_SIZE, FoldCache, FoldedMatch, fold_stream
from shared.keys import validate_match_id
from shared.readmodels.parked import TRANSIENT, ParkedMatches, find_poison
from shared.readmodels.projection import MatchReadModels, read_models_of
from shared.readmodels.publishing import publish, publish_live
from shared.readmodels.served import ReadModels

log = logging.getLogger(__name__)


@dataclass
class ProjectorContext:
    """What a job works with: the event store, the read models and the fold cache."""

    store: EventStore
    readmodels: ReadModels
    cache: FoldCache = field(default_factory=FoldCache)
    page_size: int = PAGE_SIZE
    linger_seconds: float = 0.0  # how long a catch-up drain waits for more appends to batch
    busy_linger_seconds: float = 0.0  # the same, while its lane stays busy (see services.projector.lanes)

    @classmethod
    def from_config(cls, config: Config) -> ProjectorContext:
        """Connect to the Redis of ``config`` (events and read models share it)."""
        client = connect(config.redis_url)
        return cls(
            RedisEventStore(client), ReadModels(client), linger_seconds=config.catch_up_linger_ms / 1000,
            busy_linger_seconds=config.catch_up_busy_linger_ms / 1000,
        )


def catch_up(match_id: str, context: ProjectorContext) -> int:
    """Fold every event not yet folded into the match's read models; the version reached.

    A match holding a poison event is parked, its views stopping just before it.
    """
    try:
        return _catch_up(match_id, context)
    except Exception as error:
        return park_if_poisoned(context, match_id, error)


def _catch_up(match_id: str, context: ProjectorContext) -> int:
    start = context.cache.get(match_id) or FoldedMatch(validate_match_id(match_id))
    projection = fold_stream(context.store, start, context.page_size)
    if projection.version == start.version:
        # Nothing new since this process last wrote the match: only make sure no mark
        # is left behind (compare-and-delete, so a newer append's mark survives).
        context.store.mark_projected(match_id, projection.version)
        return projection.version
    publish_live(context.readmodels, projection, relist=projection.status is not start.status)
    context.cache.put(projection)
    return projection.version


def rebuild_match(
    match_id: str, context: ProjectorContext, *, generation: int | None = None,
) -> int:
    """Fold the match from version 0, ignoring the cache, and rewrite its read models.

    Without ``generation``: the live generations, as a catch-up would. With one: only
    that generation, leaving the mark and the fold cache alone (they stand for the
    generation reads use, which this did not write).
    """
    try:
        projection = fold_stream(context.store, FoldedMatch(validate_match_id(match_id)), context.page_size)
    except Exception as error:
        return park_if_poisoned(context, match_id, error, generation=generation)
    if not projection.version:
        return 0
    _publish_to(context, projection, generation, replace_same_version=True)
    return projection.version


def rebuild_batch(match_ids: list[str], generation: int, context: ProjectorContext) -> int:
    """The rebuild's job: fold each match from 0 into ``generation``; the events folded.

    Stops as soon as ``generation`` is no longer being built (the rebuild was abandoned
    and its keys dropped: writing now would only leave garbage behind).
    """
    events = 0
    for match_id in match_ids:
        if context.readmodels.pointer().building != generation:
            break
        events += rebuild_match(match_id, context, generation=generation)
    return events


def park_if_poisoned(
    context: ProjectorContext, match_id: str, error: Exception, *, generation: int | None = None,
) -> int:
    """The jobs' error path: park a match that holds a poison event; re-raise anything else.

    Projects the events before the poison (into ``generation``, or the live ones) and
    returns the version of the last of them.
    """
    if isinstance(error, TRANSIENT):
        raise error
    found = find_poison(context.store, match_id, context.page_size)
    if found is None:  # every event folds: the failure lies elsewhere (e.g. a bug in a view)
        raise error
    before, poison = found
    if before.version:
        _publish_to(context, before, generation)
    ParkedMatches(context.readmodels.client).park(match_id, poison, context.store.version(match_id))
    log.error("Parked match %s: event %d cannot be folded (%s)", match_id, poison.version, poison.error)
    return before.version


def _publish_to(
    context: ProjectorContext, projection: FoldedMatch, generation: int | None, *, replace_same_version: bool = False,
) -> None:
    """Relist and write into ``generation`` only, or (None) into the live ones and the fold cache."""
    if generation is None:
        publish_live(context.readmodels, projection, relist=True, replace_same_version=replace_same_version)
        context.cache.put(projection)
    else:
        publish(context.readmodels, projection, relist=True, replace_same_version=replace_same_version,
                generation=generation, clear_mark=False)


def fresh_views(store: EventStore, match_id: str) -> MatchReadModels:
    """What the match's read models should be, folded from its stream (tests and audits)."""
    return read_models_of(fold_stream(store, FoldedMatch(validate_match_id(match_id))))


