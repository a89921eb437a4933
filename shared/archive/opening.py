"""The archive a deployment's settings name (``ARCHIVE_URL``): the one place an adapter is chosen.

- unset, or ``file:``: the files archive under ``DATA_DIR/archive``;
- ``file:DIR`` (or ``file://DIR``): the files archive under ``DIR``;
- ``s3://bucket[/prefix]``: the S3 archive, at ``ARCHIVE_S3_ENDPOINT`` or boto3's endpoint.
Anything else is :class:`ArchiveSettingError`, at the start, not at the first archived match.
"""

from __future__ import annotations

from pathlib import Path

from shared.archive.files import FileArchive
from shared.archive.port import Archive
from shared.config import Config


class ArchiveSettingError(ValueError):
    """``ARCHIVE_URL`` names no archive this server can open."""


def open_archive(settings: Config) -> Archive:
    """The archive ``settings.archive_url`` names (no I/O yet: ``check()`` reaches it)."""
    url = settings.archive_url.strip()
    if not url or url.startswith("file:"):
        return FileArchive(archive_dir(url, settings.data_dir))
    if url.startswith("s3://"):
        from shared.archive.s3 import S3Archive  # boto3 costs a fifth of a second to import: only when used

        try:
            return S3Archive.from_url(url, settings.archive_s3_endpoint)
        except ValueError as error:
            raise ArchiveSettingError(str(error)) from error
    raise ArchiveSettingError(f"ARCHIVE_URL must be file:[DIR] or s3://bucket[/prefix], not {url!r}")


def archive_dir(url: str, data_dir: Path) -> Path:
    """The directory a ``file:`` URL names (``DATA_DIR/archive`` when it names none)."""
    path = url.removeprefix("file:").removeprefix("//")
    return Path(path).resolve() if path else data_dir / "archive"
