"""An in-memory archive, for unit tests: it keeps the encoded bytes, as a real archive would."""

from __future__ import annotations

import threading
from collections.abc import Iterator

from shared.archive import archive_format
from shared.archive.port import ArchivedMatch, Receipt
from shared.ids import validate_match_id


class InMemoryArchive:
    """The :class:`~shared.archive.port.Archive` contract, in a dict of compressed records."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._records: dict[str, bytes] = {}

    def put(self, match: ArchivedMatch) -> Receipt:
        """Keep the match's record (replacing an equal one)."""
        validate_match_id(match.match_id)  # an id the other archives could not name is refused here too
        blob = archive_format.encode(match)
        with self._lock:
            self._records[match.match_id] = blob
        return Receipt(f"memory:{match.match_id}", len(blob))

    def get(self, match_id: str) -> ArchivedMatch | None:
        """The match kept under ``match_id``, decoded, or None."""
        validate_match_id(match_id)
        with self._lock:
            blob = self._records.get(match_id)
        return None if blob is None else archive_format.decode(match_id, blob)

    def match_ids(self) -> Iterator[str]:
        """The ids kept, as of this call."""
        with self._lock:
            return iter(list(self._records))

    def check(self) -> None:
        """Always reachable."""
