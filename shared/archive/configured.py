"""The archive the configuration names: the one place every process builds it (archiver, API, CLI).

For now a directory, ``DATA_DIR/archive``: every process of one ``make run`` shares it.
"""
from __future__ import annotations

from shared.archive.directory import DirectoryArchive
from shared.archive.port import Archive
from shared.config import Config


def configured_archive(config: Config) -> Archive:
    """The archive of ``config``."""
    return DirectoryArchive(config.data_dir / "archive")
