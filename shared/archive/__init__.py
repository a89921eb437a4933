"""The archive: finished matches, whole, out of Redis (the port: :mod:`.port`)."""

from shared.archive.port import Archive, ArchivedMatch, ArchiveUnavailableError, DamagedArchiveError, Receipt

__all__ = ["Archive", "ArchiveUnavailableError", "ArchivedMatch", "DamagedArchiveError", "Receipt"]
