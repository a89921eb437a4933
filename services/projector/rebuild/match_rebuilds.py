"""A rebuild's work on matches: each folded from version 0, ignoring the cache, and written anew.

An archived match is folded from the archive: a rebuild counts its results and lists it as
before, and writes no views back (they left Redis with it; its reads render them).
"""

from __future__ import annotations

from services.projector.catchup.failures import FAILED, parked, retrying
from services.projector.catchup.projector_context import ProjectorContext
from services.projector.parking.poison import TRANSIENT, PoisonEventError
from services.projector.publishing.guarded import publish_archived_to, publish_to
from shared.archive.archived_reads import is_archived
from shared.fold import FoldedMatch, fold_to_refusal
from shared.keys import validate_match_id

POINTER_EVERY = 8  # matches a rebuild job folds between two looks at whether its rebuild goes on


def rebuild_match(match_id: str, context: ProjectorContext, *, generation: int | None = None) -> int:
    """Fold the match from version 0, ignoring the cache, and rewrite its read models.

    Without ``generation``: the live generations, as a catch-up would. With one: only
    that generation, leaving the mark and the fold cache alone (they stand for the
    generation reads use, which this did not write). Failures: as for a catch-up
    (:mod:`services.projector.catchup.failures`).
    """
    try:
        return _fold_and_rewrite(match_id, context, generation)
    except FAILED as failure:
        return parked(context, match_id, failure, generation)


@retrying
def _fold_and_rewrite(match_id: str, context: ProjectorContext, generation: int | None) -> int:
    """Fold the match wherever it lives; an archived one adds its results and listings, not its views."""
    history = context.history or context.store
    reach = fold_to_refusal(history, FoldedMatch(validate_match_id(match_id)), context.page_size, passes=TRANSIENT)
    projection = reach.match
    if projection.version and is_archived(history, match_id):
        publish_archived_to(context, projection, generation)
    elif projection.version:
        publish_to(context, projection, generation, replace_same_version=True)
    if reach.refusal is not None:
        raise PoisonEventError(match_id, reach.refusal, projection.version)
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
