"""The filesystem archive: one file per match under a directory (``DATA_DIR/archive`` by default).

A record is written whole or not at all: to a temporary name beside its place, fsynced,
renamed over its place and its directory fsynced, so after a crash the old record (or none)
or the new one is read, never half of one, and the rename itself survives a power cut. A
crash can leave a temporary file behind (``.<name>.<random>.tmp``); nothing reads or lists
it, and a later put of the match writes a fresh one.

An archived match holds every hand and its seed: directories are 0700 and files 0600
(:mod:`shared.private_files`), and a symlink is never followed into or out of the tree.
Files fan out by the id's first two characters (:mod:`.layout`).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from pathlib import Path

from shared.archive import archive_format
from shared.archive.layout import match_id_of, record_name
from shared.archive.port import ArchivedMatch, ArchiveUnavailableError, DamagedArchiveError, Receipt
from shared.private_files import private_dir, private_output

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class FileArchive:
    """The :class:`~shared.archive.port.Archive` contract, in private files under ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def put(self, match: ArchivedMatch) -> Receipt:
        """Write the match's record whole (replacing an equal one); ArchiveUnavailableError if it cannot."""
        blob = archive_format.encode(match)
        name = record_name(match.match_id)
        path = self.root / name
        try:
            _durable_dir(self.root)
            _durable_dir(path.parent)
            with private_output(path, replace=True) as file:
                file.write(blob)
                file.flush()
                os.fsync(file.fileno())  # the bytes are on disk before the name points at them
            _fsync_dir(path.parent)  # ... and the rename is too
        except OSError as error:
            raise ArchiveUnavailableError(f"cannot write the archived match at {path}: {error}") from error
        return Receipt(f"file:{name}", len(blob))

    def get(self, match_id: str) -> ArchivedMatch | None:
        """The match archived under ``match_id``, or None; DamagedArchiveError for a record not whole."""
        path = self.root / record_name(match_id)
        try:
            blob = _read(path)
        except FileNotFoundError:
            return None
        except OSError as error:
            if error.errno == errno.ELOOP:
                raise DamagedArchiveError(f"{path} is a symlink, not an archived record") from error
            raise ArchiveUnavailableError(f"cannot read the archived match at {path}: {error}") from error
        return archive_format.decode(match_id, blob)

    def match_ids(self) -> Iterator[str]:
        """Every archived id, walking the tree (temporary files and strangers are skipped)."""
        try:
            fans = sorted(entry.name for entry in os.scandir(self.root) if entry.is_dir(follow_symlinks=False))
        except FileNotFoundError:
            return
        except OSError as error:
            raise ArchiveUnavailableError(f"cannot list the archive at {self.root}: {error}") from error
        for fan in fans:
            try:
                files = sorted(entry.name for entry in os.scandir(self.root / fan)
                               if entry.is_file(follow_symlinks=False))
            except OSError as error:
                raise ArchiveUnavailableError(f"cannot list the archive at {self.root / fan}: {error}") from error
            yield from filter(None, (match_id_of(f"{fan}/{file}") for file in files))

    def check(self) -> None:
        """Return if the archive's directory exists (or can be made) and can be written."""
        try:
            _durable_dir(self.root)
        except OSError as error:
            raise ArchiveUnavailableError(f"the archive at {self.root} cannot be made: {error}") from error
        if not os.access(self.root, os.W_OK | os.X_OK):
            raise ArchiveUnavailableError(f"the archive at {self.root} cannot be written")


def _durable_dir(directory: Path) -> None:
    """Make ``directory`` private (0700); when it is new, fsync its parent so its name survives too."""
    new = not directory.exists()
    private_dir(directory)  # also tightens a loosened mode, and refuses a symlink
    if new:
        _fsync_dir(directory.parent)


def _fsync_dir(directory: Path) -> None:
    descriptor = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _read(path: Path) -> bytes:
    descriptor = os.open(path, os.O_RDONLY | _NOFOLLOW)
    with os.fdopen(descriptor, "rb") as file:
        return file.read()
