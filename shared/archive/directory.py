"""The archive in a local directory: one file per match, ``<dir>/<id[:2]>/<id>.zst``, written whole.

A record is written to a temporary file, flushed to disk, then renamed over its name: a
crash leaves the old record (or none) or the new one, never half of one.
"""
from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from shared import keys
from shared.archive import archive_format
from shared.archive.port import ArchivedMatch, ArchiveUnavailableError, Receipt


class DirectoryArchive:
    """The :class:`~shared.archive.port.Archive` contract in a directory of compressed records."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def _path(self, match_id: str) -> Path:
        match_id = keys.validate_match_id(match_id)
        return self.root / match_id[:2] / f"{match_id}.zst"

    def put(self, match: ArchivedMatch) -> Receipt:
        """Write the match's record whole (replacing an equal one)."""
        blob, path = archive_format.encode(match), self._path(match.match_id)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".", suffix=".part", delete=False) as file:
                file.write(blob)
                file.flush()
                os.fsync(file.fileno())
            os.replace(file.name, path)
        except OSError as error:
            raise ArchiveUnavailableError(f"cannot write {path}: {error}") from error
        return Receipt(f"file:{path}", len(blob))

    def get(self, match_id: str) -> ArchivedMatch | None:
        """The match recorded under ``match_id``, or None."""
        path = self._path(match_id)
        try:
            blob = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as error:
            raise ArchiveUnavailableError(f"cannot read {path}: {error}") from error
        return archive_format.decode(match_id, blob)

    def match_ids(self) -> Iterator[str]:
        """The ids recorded, as of this call."""
        return iter(sorted(path.stem for path in self.root.glob("*/*.zst")))

    def check(self) -> None:
        """Reachable if the directory exists (or can be made) and can be written."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ArchiveUnavailableError(f"cannot make {self.root}: {error}") from error
        if not os.access(self.root, os.W_OK | os.X_OK):
            raise ArchiveUnavailableError(f"cannot write into {self.root}")
