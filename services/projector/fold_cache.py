"""Each worker's memory of the matches it folded last, so a job folds only what is new."""

from __future__ import annotations

import threading
from collections import OrderedDict

from services.projector.projection import Projection

CACHE_SIZE = 1024  # matches whose fold a worker keeps between jobs


class FoldCache:
    """The latest projection of recently caught-up matches (LRU, thread-safe).

    Lets a job fold only the events after what this process already folded. A miss just
    replays the match from version 0 (matches are short). Only projections whose read
    models were written are put here.
    """

    def __init__(self, capacity: int = CACHE_SIZE) -> None:
        self._capacity = capacity
        self._entries: OrderedDict[str, Projection] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, match_id: str) -> Projection | None:
        """The cached projection of the match, if any."""
        with self._lock:
            projection = self._entries.get(match_id)
            if projection is not None:
                self._entries.move_to_end(match_id)
            return projection

    def put(self, projection: Projection) -> None:
        """Keep ``projection`` unless a further one of the same match is cached."""
        with self._lock:
            cached = self._entries.get(projection.match_id)
            if cached is None or cached.version < projection.version:
                self._entries[projection.match_id] = projection
            self._entries.move_to_end(projection.match_id)
            while len(self._entries) > self._capacity:
                self._entries.popitem(last=False)
