"""Publishing from a job: into the live generations or into one, a write that cannot succeed named.

A failure that is not transient (see ``parking.poison.TRANSIENT``) is raised as
:class:`UnpublishableError`: the fold succeeded, so whatever failed, writing it did, and a
retry would fail the same way (the failure policy parks the match).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from services.projector.catchup.projector_context import ProjectorContext
from services.projector.parking.poison import TRANSIENT, describe
from services.projector.publishing.publish import publish, publish_archived, publish_live
from shared.fold import FoldedMatch
from shared.readmodels.parked import Poison
from shared.readmodels.read_along import ReadAlong


class UnpublishableError(Exception):
    """The read models of a match that folds could not be written, and a retry would fail the same way."""

    def __init__(self, match_id: str, version: int, cause: Exception) -> None:
        super().__init__(f"the read models of match {match_id!r} up to version {version} cannot be written: {cause}")
        self.version = version
        self.poison = Poison(version, f"read models cannot be written: {describe(cause)}")


def publish_to_live(
    context: ProjectorContext, projection: FoldedMatch, *, relist: bool = True,
    replace_same_version: bool = False, along: ReadAlong | None = None,
) -> None:
    """Write the live generations (``along``: the pointer and names read after the fold, see
    ``publish_live``), then the fold cache."""
    with _unpublishable(projection):
        publish_live(context.readmodels, projection, relist=relist, replace_same_version=replace_same_version,
                     along=along)
    context.cache.put(projection)


def publish_to_generation(
    context: ProjectorContext, projection: FoldedMatch, generation: int, *, replace_same_version: bool = False,
) -> None:
    """Write ``generation`` only (a rebuild's), leaving the mark and the fold cache alone."""
    with _unpublishable(projection):
        publish(context.readmodels, projection, relist=True, replace_same_version=replace_same_version,
                generation=generation, clear_mark=False)


def publish_to(
    context: ProjectorContext, projection: FoldedMatch, generation: int | None, *, replace_same_version: bool = False,
) -> None:
    """Write ``generation``, or (None) the live ones."""
    if generation is None:
        publish_to_live(context, projection, replace_same_version=replace_same_version)
    else:
        publish_to_generation(context, projection, generation, replace_same_version=replace_same_version)


def publish_archived_to(context: ProjectorContext, projection: FoldedMatch, generation: int | None) -> None:
    """An archived match's results and listings into ``generation`` (None: the one reads use)."""
    with _unpublishable(projection):
        publish_archived(context.readmodels, projection, generation=generation)


@contextmanager
def _unpublishable(projection: FoldedMatch) -> Iterator[None]:
    try:
        yield
    except TRANSIENT:
        raise
    except Exception as error:  # noqa: BLE001 - the fold succeeded: whatever failed, writing it did
        raise UnpublishableError(projection.match_id, projection.version, error) from error
