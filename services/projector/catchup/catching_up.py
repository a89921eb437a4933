"""Catching one match's read models up with its event stream (the projector's work).

``catch_up`` folds *everything* new for its match (one job per event would cap
throughput), and every write it makes is idempotent, so running it twice, or two workers
on one match at once, changes nothing:

1. a finished match's results are recorded first (each counted once per player);
2. on a status change, the match is listed under its new lobby status;
3. the views, summary and checkpoint are written and the "unprojected" mark cleared, in
   one script that never moves a match backwards;
4. the lobby is settled on the stored summary (a slower worker may have relisted it).

A crash before step 3 leaves the mark set, so the sweep redoes the whole job. What a
failure does (a retry, or the match parked) is decided once, by
:mod:`services.projector.catchup.failures`.

While a rebuild runs (see :mod:`shared.readmodels.generations`), steps 1-4 are done first
for the generation being built, without clearing the mark, then for the one being served
(the pointer that says so is read after the events, in the round trip of their last read
where the read-model store's adapter can: see ``ReadSide.fold_new``). Rebuilding a match from
version 0 is :mod:`services.projector.rebuild.match_rebuilds`. The projector's RQ jobs call these;
so do the CLI's import, unpark and inline rebuild (through :mod:`services.projector.operations`).
"""

from __future__ import annotations

import time

from services.projector.catchup.failures import FAILED, parked, retrying
from services.projector.catchup.projector_context import ProjectorContext
from services.projector.parking.poison import TRANSIENT, PoisonEventError
from services.projector.publishing.guarded import publish_to_live
from shared.eventstore.port import EventStore
from shared.fold import FoldedMatch, fold_stream
from shared.keys import validate_match_id
from shared.observability import metrics
from shared.observability.log_context import bound
from shared.readmodels.parked import ParkedMatch
from shared.readmodels.port import ReadSide
from shared.readmodels.projection import MatchReadModels, read_models_of, seated_ids


def catch_up(match_id: str, context: ProjectorContext) -> int:
    """Fold every event not yet folded into the match's read models; the version reached.

    A match holding a poison event is parked, its views stopping just before it; so is one
    whose read models cannot be written, its views left as they were.
    """
    started, ok = time.perf_counter(), False
    with bound(match_id=match_id):
        try:
            version, ok = _fold_and_publish(match_id, context), True
        except FAILED as failure:
            version = parked(context, match_id, failure)
        finally:
            metrics.record_catch_up(time.perf_counter() - started, ok=ok)
    return version


@retrying
def _fold_and_publish(match_id: str, context: ProjectorContext) -> int:
    start = context.cache.get(match_id) or FoldedMatch(validate_match_id(match_id))
    reach, along = context.readmodels.fold_new(context.store, start, context.page_size, TRANSIENT)
    projection = reach.match
    if projection.version != start.version:
        publish_to_live(context, projection, relist=projection.status is not start.status, along=along)
    elif reach.refusal is None:
        # Nothing new since this process last wrote the match: only make sure no mark
        # is left behind (compare-and-delete, so a newer append's mark survives).
        context.store.mark_projected(match_id, projection.version)
    if reach.refusal is not None:
        raise PoisonEventError(match_id, reach.refusal, projection.version)
    return projection.version


def unpark(match_id: str, ctx: ProjectorContext) -> ParkedMatch | None:
    """Retry a parked match now; its new record if it is still parked, else None (an
    operator's action: ``truc unpark MATCH``, ``python -m services.projector unpark MATCH``)."""
    registry = ctx.readmodels.parked
    registry.remove(match_id)
    catch_up(match_id, ctx)
    return registry.get(match_id)


def fresh_views(store: EventStore, match_id: str, readmodels: ReadSide | None = None) -> MatchReadModels:
    """What the match's read models should be, folded from its stream, its players named by
    ``readmodels``' directory (None: unnamed) (tests and audits)."""
    folded = fold_stream(store, FoldedMatch(validate_match_id(match_id)))
    return read_models_of(folded, None if readmodels is None else readmodels.names(seated_ids(folded.state)))
