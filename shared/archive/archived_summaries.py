"""The lobby line of an archived match, for the lists that still name it.

The archiver deletes a match's views, summary included, but the lobby's and the players'
lists keep its id (see :mod:`shared.archive.leaving`). A list that meets an id with no
summary asks :class:`ArchivedSummaries`: for an archived match, the line is folded from its
archived events through the projector's own code (:func:`~shared.readmodels.projection.summary`, what
``read_models_of`` gives the projector), so it is the line the projector stored before the match left. Lines are kept
(bounded in count and age), and the events come through the reads' own cache: a page
read again and again reads the archive once.

An archived match whose record cannot be read now (the archive unreachable, the record
damaged) is left out of the page, and logged: one bad record must not take every page it
falls on with it, and the match's own reads answer 503 with the reason. While the archive
is unreachable, it is not asked again for ``OUTAGE_SECONDS``: a page of fifty archived
matches must not wait for fifty timeouts.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import orjson

from shared.archive.archived_reads import ArchivedReads, KeptAWhile
from shared.archive.port import ArchiveUnavailableError, DamagedArchiveError
from shared.eventstore.store_errors import EventStoreError
from shared.fold import FoldedMatch, fold_page
from shared.readmodels.projection import Names, seated_ids, summary

CACHED_LINES = 4096  # lobby lines of archived matches a process keeps: some 2 MB at most
CACHED_LINE_SECONDS = 600.0
OUTAGE_SECONDS = 5.0  # after the archive was found unreachable, lists leave its matches out this long

log = logging.getLogger(__name__)


class ArchivedSummaries:
    """``summaries(match_id)``: the archived match's lobby line; None if it is not archived or cannot be read now."""

    def __init__(self, reads: ArchivedReads, names: Callable[[list[str]], Names] | None = None,
                 size: int = CACHED_LINES, seconds: float = CACHED_LINE_SECONDS,
                 clock: Callable[[], float] = time.monotonic, kept: Callable[[], None] = lambda: None) -> None:
        """``names``: the player directory's names of some ids (the players are named as the projector names them);
        ``kept``: called once a line is kept (the API starts hearing renames then, to forget the lines they change)."""
        self._reads, self._names, self._clock, self._kept = reads, names, clock, kept
        self._lines: KeptAWhile[dict[str, Any]] = KeptAWhile(size, seconds, clock)
        self._down_until = 0.0
        self._lock = threading.Lock()

    def __call__(self, match_id: str) -> dict[str, Any] | None:
        kept = self._lines.get(match_id)
        if kept is not None:
            return kept
        if self._clock() < self._down_until:
            return None  # the archive was unreachable a moment ago: not asked again yet
        try:
            archived = self._reads.archived(match_id)
            if archived is None:
                return None
            folded = fold_page(FoldedMatch(match_id), list(archived.events))  # a long match: off the event loop
            names = None if self._names is None else self._names(seated_ids(folded.state))
            # As the projector stores it: JSON types only.
            line = orjson.loads(orjson.dumps(summary(folded, names=names)))
        except ArchiveUnavailableError as error:
            with self._lock:
                self._down_until = self._clock() + OUTAGE_SECONDS
            log.warning("archived match %s left out of a list: the archive is unreachable: %s", match_id, error)
            return None
        except (DamagedArchiveError, EventStoreError, ValueError) as error:  # damaged, or events that do not fold
            log.error("archived match %s left out of a list: its record cannot be read: %s", match_id, error)
            return None
        self._lines.keep(match_id, line)
        self._kept()
        return line

    def __len__(self) -> int:
        return len(self._lines)

    def forget(self) -> None:
        """Forget every line kept: a player was renamed or erased, and a line names its players."""
        self._lines.clear()

