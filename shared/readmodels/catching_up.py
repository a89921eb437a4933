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
So is a match whose read models cannot be written for a reason that would not change on
a retry (an id no key may hold, a view that cannot be computed): it waits, parked, and
the other matches, and the rebuild, go on. A Redis or OS error is raised as it is.

While a rebuild runs (see :mod:`shared.readmodels.generations`), steps 1-4 are done first
for the generation being built, without clearing the mark, then for the one being served
(the pointer that says so is read after the events, in the round trip of their last read).
``rebuild_batch`` folds matches from version 0 into the new generation only (see
:mod:`shared.readmodels.rebuild`). The projector's RQ jobs call these; so do the CLI's
import and inline rebuild.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

from shared.config import Config
from shared.connect import connect, is_cluster_client
from shared.eventstore import RedisEventStore
from shared.eventstore.marks import MarkedEventStore
from shared.eventstore.port import EventStore
from shared.fold import PAGE_SIZE, FoldCache, FoldedMatch, fold_stream, fold_stream_then
from shared.keys import validate_match_id
from shared.observability import metrics
from shared.observability.log_context import bound
from shared.readmodels.generations import Pointer, pointer_from, queue_pointer_read
from shared.readmodels.parked import TRANSIENT, ParkedMatch, ParkedMatches, Poison, describe, find_poison
from shared.readmodels.projection import MatchReadModels, read_models_of
from shared.readmodels.publishing import publish, publish_live
from shared.readmodels.served import ReadModels

log = logging.getLogger(__name__)

POINTER_EVERY = 8  # matches a rebuild job folds between two looks at whether its rebuild goes on


class UnpublishableError(Exception):
    """The read models of a match that folds could not be written, and a retry would fail the same way."""

    def __init__(self, match_id: str, version: int, cause: Exception) -> None:
        super().__init__(f"the read models of match {match_id!r} up to version {version} cannot be written: {cause}")
        self.version = version
        self.poison = Poison(version, f"read models cannot be written: {describe(cause)}")


@dataclass
class ProjectorContext:
    """What a job works with: the event store, the read models and the fold cache."""

    store: MarkedEventStore
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

    A match holding a poison event is parked, its views stopping just before it; so is one
    whose read models cannot be written, its views left as they were.
    """
    started = time.perf_counter()
    with bound(match_id=match_id):
        try:
            version = _catch_up(match_id, context)
        except Exception as error:
            metrics.record_catch_up(time.perf_counter() - started, ok=False)
            return park_if_poisoned(context, match_id, error)
    metrics.record_catch_up(time.perf_counter() - started, ok=True)
    return version


def _catch_up(match_id: str, context: ProjectorContext) -> int:
    start = context.cache.get(match_id) or FoldedMatch(validate_match_id(match_id))
    projection, pointer = _fold_new(context, start)
    if projection.version == start.version:
        # Nothing new since this process last wrote the match: only make sure no mark
        # is left behind (compare-and-delete, so a newer append's mark survives).
        context.store.mark_projected(match_id, projection.version)
        return projection.version
    _publish_to(context, projection, None, relist=projection.status is not start.status, pointer=pointer)
    return projection.version


def _fold_new(context: ProjectorContext, start: FoldedMatch) -> tuple[FoldedMatch, Pointer | None]:
    """The events after ``start`` folded, and the generation pointer read after them in the same
    round trip when the store's Redis is the read models' and runs it in order (None: not read)."""
    store, client = context.store, context.readmodels.client
    if not isinstance(store, RedisEventStore) or store.client is not client or is_cluster_client(client):
        return fold_stream(store, start, context.page_size), None
    projection, reply = fold_stream_then(store, start, queue_pointer_read, context.page_size)
    return projection, pointer_from(reply)


def rebuild_match(
    match_id: str, context: ProjectorContext, *, generation: int | None = None,
) -> int:
    """Fold the match from version 0, ignoring the cache, and rewrite its read models.

    Without ``generation``: the live generations, as a catch-up would. With one: only
    that generation, leaving the mark and the fold cache alone (they stand for the
    generation reads use, which this did not write).

    A match that cannot be folded or written is parked, except one whose views the
    generation reads use already holds at that version: then writing ``generation`` fails,
    not the match, and the error is raised (a rebuild is abandoned rather than served
    without it).
    """
    try:
        projection = fold_stream(context.store, FoldedMatch(validate_match_id(match_id)), context.page_size)
        if projection.version:
            _publish_to(context, projection, generation, replace_same_version=True)
    except UnpublishableError as error:
        if generation is not None and context.readmodels.projected_version(match_id) >= error.version:
            raise
        return park_if_poisoned(context, match_id, error, generation=generation)
    except Exception as error:
        return park_if_poisoned(context, match_id, error, generation=generation)
    return projection.version


def rebuild_batch(match_ids: list[str], generation: int, context: ProjectorContext) -> int:
    """The rebuild's job: fold each match from 0 into ``generation``; the events folded.

    Stops once ``generation`` is no longer being built (the rebuild was abandoned and its
    keys dropped: writing now would only leave garbage behind). The pointer is looked at
    every ``POINTER_EVERY`` matches, not before each: that read was a seventh of a match's
    round trips, and an abandoned rebuild is rare.
    """
    events = 0
    for index, match_id in enumerate(match_ids):
        if index % POINTER_EVERY == 0 and context.readmodels.pointer().building != generation:
            break
        events += rebuild_match(match_id, context, generation=generation)
    return events


def park_if_poisoned(
    context: ProjectorContext, match_id: str, error: Exception, *, generation: int | None = None,
) -> int:
    """The jobs' error path: park a match that holds a poison event or cannot be written; re-raise anything else.

    A poison: projects the events before it (into ``generation``, or the live ones) and
    returns the version of the last of them. Read models that cannot be written
    (:class:`UnpublishableError`, from here or from before a poison): returns the version
    the views of that generation still hold.
    """
    if isinstance(error, TRANSIENT):
        raise error
    if isinstance(error, UnpublishableError):
        _park(context, match_id, error.poison)
        return _views_version(context, match_id, generation)
    found = find_poison(context.store, match_id, context.page_size)
    if found is None:  # every event folds and none was written: the failure lies elsewhere
        raise error
    before, poison = found
    try:
        if before.version:
            _publish_to(context, before, generation)
    except UnpublishableError as unwritable:
        _park(context, match_id, unwritable.poison)
        return _views_version(context, match_id, generation)
    _park(context, match_id, poison)
    return before.version


def _park(context: ProjectorContext, match_id: str, poison: Poison) -> None:
    ParkedMatches(context.readmodels.client).park(match_id, poison, context.store.version(match_id))
    log.error("Parked match %s at event %d: %s", match_id, poison.version, poison.error)


def _views_version(context: ProjectorContext, match_id: str, generation: int | None) -> int:
    """The version of the match's views in ``generation`` (None: the one reads use)."""
    target = context.readmodels.generation() if generation is None else generation
    return context.readmodels.at(target).projected_version(match_id)


def _publish_to(
    context: ProjectorContext, projection: FoldedMatch, generation: int | None, *, relist: bool = True,
    replace_same_version: bool = False, pointer: Pointer | None = None,
) -> None:
    """Write into ``generation`` only, or (None) into the live ones (``pointer``: as read after
    the fold, see ``publish_live``) and the fold cache.

    A failure that is not transient (see ``TRANSIENT``) is raised as :class:`UnpublishableError`.
    """
    try:
        if generation is None:
            publish_live(context.readmodels, projection, relist=relist, replace_same_version=replace_same_version,
                         pointer=pointer)
        else:
            publish(context.readmodels, projection, relist=relist, replace_same_version=replace_same_version,
                    generation=generation, clear_mark=False)
    except TRANSIENT:
        raise
    except Exception as error:  # noqa: BLE001 - the fold succeeded: whatever failed, writing it did
        raise UnpublishableError(projection.match_id, projection.version, error) from error
    if generation is None:
        context.cache.put(projection)


def fresh_views(store: EventStore, match_id: str) -> MatchReadModels:
    """What the match's read models should be, folded from its stream (tests and audits)."""
    return read_models_of(fold_stream(store, FoldedMatch(validate_match_id(match_id))))


def unpark(match_id: str, ctx: ProjectorContext) -> ParkedMatch | None:
    """Retry a parked match now; its new record if it is still parked, else None (an
    operator's action: ``truc unpark MATCH``, ``python -m services.projector unpark MATCH``)."""
    registry = ParkedMatches(ctx.readmodels.client)
    registry.remove(match_id)
    catch_up(match_id, ctx)
    return registry.get(match_id)
