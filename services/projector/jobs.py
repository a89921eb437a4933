"""The projector's jobs: catch one match's read models up with its event stream.

``catch_up(match_id)`` is the RQ job the API enqueues after each append, and what the
worker's sweep runs for matches whose job was lost. Every job folds *everything* new for
its match (one job per event would cap throughput), and every write it makes is
idempotent, so running a job twice, or two workers on one match at once, changes nothing:

1. a finished match's results are recorded first (each counted once per player);
2. on a status change, the match is listed under its new lobby status;
3. the views, summary and checkpoint are written and the "unprojected" mark cleared, in
   one script that never moves a match backwards;
4. the lobby is settled on the stored summary (a slower worker may have relisted it).

A crash before step 3 leaves the mark set, so the sweep redoes the whole job. A match
whose stream holds an event this code cannot fold is parked instead of failing every job
(see :mod:`services.projector.poison`): the events before it are projected, the rest wait.

While a rebuild runs (see :mod:`shared.readmodel_pointer`), steps 1-4 are done first for
the generation being built, without clearing the mark, then for the one being served.
``rebuild_batch`` is the rebuild's job: it folds matches from version 0 into the new
generation only (see :mod:`services.projector.rebuild`).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field

from services.projector.fold_cache import FoldCache
from services.projector.poison import TRANSIENT, ParkedMatches, find_poison
from services.projector.projection import (
    MatchReadModels,
    Projection,
    advance,
    read_models_of,
)
from shared.config import Config
from shared.connect import connect
from shared.eventstore import RedisEventStore
from shared.eventstore.port import EventStore
from shared.keys import validate_match_id
from shared.readmodels import ReadModels

PAGE_SIZE = 500  # events per read: a whole match in one round trip, bounded memory

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


_context: ProjectorContext | None = None
_context_lock = threading.Lock()


def use_context(context: ProjectorContext | None) -> None:
    """Make ``context`` the one jobs of this process use; None: build it from the env again."""
    global _context
    with _context_lock:
        _context = context


def current_context() -> ProjectorContext:
    """This process's context, connected on first use from ``Config.from_env()``."""
    global _context
    with _context_lock:
        if _context is None:
            _context = ProjectorContext.from_config(Config.from_env())
        return _context


def catch_up(match_id: str, context: ProjectorContext | None = None) -> int:
    """Fold every event not yet folded into the match's read models; the version reached.

    A match holding a poison event is parked, its views stopping just before it.
    """
    ctx = context or current_context()
    try:
        return _catch_up(match_id, ctx)
    except Exception as error:
        return park_if_poisoned(ctx, match_id, error)


def _catch_up(match_id: str, ctx: ProjectorContext) -> int:
    start = ctx.cache.get(match_id) or Projection(validate_match_id(match_id))
    projection = fold_stream(ctx.store, start, ctx.page_size)
    if projection.version == start.version:
        # Nothing new since this process last wrote the match: only make sure no mark
        # is left behind (compare-and-delete, so a newer append's mark survives).
        ctx.store.mark_projected(match_id, projection.version)
        return projection.version
    publish_live(ctx.readmodels, projection, relist=projection.status is not start.status)
    ctx.cache.put(projection)
    return projection.version


def rebuild_match(
    match_id: str, context: ProjectorContext | None = None, *, generation: int | None = None,
) -> int:
    """Fold the match from version 0, ignoring the cache, and rewrite its read models.

    Without ``generation``: the live generations, as a catch-up would. With one: only
    that generation, leaving the mark and the fold cache alone (they stand for the
    generation reads use, which this did not write).
    """
    ctx = context or current_context()
    try:
        projection = fold_stream(ctx.store, Projection(validate_match_id(match_id)), ctx.page_size)
    except Exception as error:
        return park_if_poisoned(ctx, match_id, error, generation=generation)
    if not projection.version:
        return 0
    _publish_to(ctx, projection, generation, replace_same_version=True)
    return projection.version


def rebuild_batch(match_ids: list[str], generation: int, context: ProjectorContext | None = None) -> int:
    """The rebuild's job: fold each match from 0 into ``generation``; the events folded.

    Stops as soon as ``generation`` is no longer being built (the rebuild was abandoned
    and its keys dropped: writing now would only leave garbage behind).
    """
    ctx = context or current_context()
    events = 0
    for match_id in match_ids:
        if ctx.readmodels.pointer().building != generation:
            break
        events += rebuild_match(match_id, ctx, generation=generation)
    return events


def park_if_poisoned(
    ctx: ProjectorContext, match_id: str, error: Exception, *, generation: int | None = None,
) -> int:
    """The jobs' error path: park a match that holds a poison event; re-raise anything else.

    Projects the events before the poison (into ``generation``, or the live ones) and
    returns the version of the last of them.
    """
    if isinstance(error, TRANSIENT):
        raise error
    found = find_poison(ctx.store, match_id, ctx.page_size)
    if found is None:  # every event folds: the failure lies elsewhere (e.g. a bug in a view)
        raise error
    before, poison = found
    if before.version:
        _publish_to(ctx, before, generation)
    ParkedMatches(ctx.readmodels.client).park(match_id, poison, ctx.store.version(match_id))
    log.error("Parked match %s: event %d cannot be folded (%s)", match_id, poison.version, poison.error)
    return before.version


def _publish_to(
    ctx: ProjectorContext, projection: Projection, generation: int | None, *, replace_same_version: bool = False,
) -> None:
    """Relist and write into ``generation`` only, or (None) into the live ones and the fold cache."""
    if generation is None:
        publish_live(ctx.readmodels, projection, relist=True, replace_same_version=replace_same_version)
        ctx.cache.put(projection)
    else:
        publish(ctx.readmodels, projection, relist=True, replace_same_version=replace_same_version,
                generation=generation, clear_mark=False)


def fresh_views(store: EventStore, match_id: str) -> MatchReadModels:
    """What the match's read models should be, folded from its stream (tests and audits)."""
    return read_models_of(fold_stream(store, Projection(validate_match_id(match_id))))


def fold_stream(store: EventStore, projection: Projection, page_size: int = PAGE_SIZE) -> Projection:
    """Fold every stored event after ``projection.version``, reading page by page."""
    while True:
        page = store.read(projection.match_id, after=projection.version, limit=page_size)
        projection = advance(projection, page)
        if len(page) < page_size:
            return projection


def publish_live(
    readmodels: ReadModels, projection: Projection, *, relist: bool, replace_same_version: bool = False,
) -> None:
    """Write the projection to the generation reads use and, during a rebuild, the one being built.

    The pointer is read after folding: a rebuild that starts later enqueues its jobs
    later, and they fold these events themselves. The generation being built is written
    first and never clears the mark, so the mark is cleared only once the generation
    being served holds the events, and a served view is never newer than the one that is
    about to replace it. It is always relisted: its lobby may not list the match yet.
    """
    pointer = readmodels.pointer()
    models = read_models_of(projection)  # once, for both generations
    if pointer.building is not None:
        _write(readmodels, projection, models, relist=True, replace_same_version=replace_same_version,
               generation=pointer.building, clear_mark=False)
    _write(readmodels, projection, models, relist=relist, replace_same_version=replace_same_version,
           generation=pointer.generation, clear_mark=True)


def publish(
    readmodels: ReadModels, projection: Projection, *, relist: bool,
    replace_same_version: bool = False, generation: int | None = None, clear_mark: bool = True,
) -> bool:
    """Write the projection's read models in the crash-safe order; True if the views were written.

    ``relist``: the match's status may have changed, so its lobby listing must follow.
    ``generation``: where to write (None: the generation reads use, resolved once).
    ``clear_mark``: clear the match's unprojected mark up to the projection's version.
    """
    generation = readmodels.generation() if generation is None else generation
    return _write(readmodels, projection, read_models_of(projection), relist=relist,
                  replace_same_version=replace_same_version, generation=generation, clear_mark=clear_mark)


def _write(
    readmodels: ReadModels, projection: Projection, models: MatchReadModels, *, relist: bool,
    replace_same_version: bool, generation: int, clear_mark: bool,
) -> bool:
    """``publish`` with the read models already computed and the generation resolved."""
    match_id, created_at = projection.match_id, projection.created_at or 0
    for result in models.results:
        readmodels.record_result(
            match_id, result.player_id, result.name, result.won,
            result.rounds_won, result.points_for, result.points_against, generation=generation,
        )
    if relist:
        players = [seat["id"] for seat in models.summary["players"].values() if seat]
        readmodels.place_in_lobby(match_id, models.summary["status"], created_at, players, generation=generation)
    wrote = readmodels.write_match(
        match_id, models.version, models.views, models.summary,
        replace_same_version=replace_same_version, generation=generation, clear_mark=clear_mark,
    )
    if relist:
        readmodels.settle_lobby(match_id, created_at, generation=generation)
    return wrote
