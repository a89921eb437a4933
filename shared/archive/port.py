"""The archive port: where a finished match goes, whole, when it leaves Redis.

A finished match can change no more (R-rules: nothing is appended after ``match_won``
or ``match_cancelled``), so it is the unit that moves. An archive keeps one record per
match, written whole or not at all, and gives it back exactly as it was recorded:
the same events (versions, times, data, hashes) and the match's seed. The adapters
(:mod:`.memory`, :mod:`.files`, :mod:`.s3`; :mod:`.opening` picks one) are held to one contract suite
(``tests/contract/test_archive_contract.py``); what they store is :mod:`.archive_format`'s bytes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from shared.eventstore.port import StoredEvent


@dataclass(frozen=True)
class ArchivedMatch:
    """A finished match as the archive keeps it: every event, oldest first, and its seed."""

    match_id: str
    events: tuple[StoredEvent, ...]  # versions 1..n, as recorded (their chain hashes too)
    seed: str | None  # the secret behind the deals, revealed by the end of the match
    finished_at: int  # epoch ms of the match's last event
    # The players' names as served when it left (events hold ids only): a whole Redis restored
    # from the archive names them again. Not compared by a verification (names may change).
    players: Mapping[str, str] = field(default_factory=dict, compare=False)

    @property
    def head(self) -> str:
        """The hash of the last event: the chain head the archived copy is verified against."""
        return self.events[-1].hash if self.events else ""

    @property
    def count(self) -> int:
        """How many events the match recorded."""
        return len(self.events)


@dataclass(frozen=True)
class Receipt:
    """Where an archive put a match, and how many bytes it takes there."""

    where: str  # e.g. ``file:3f/3f2a….zst`` (under the archive's root) or ``s3://bucket/prefix/3f/3f2a….zst``
    size: int


class ArchiveUnavailableError(Exception):
    """The archive cannot be reached or written now (a transient failure: try again later)."""


class DamagedArchiveError(ValueError):
    """A record read back is not a whole archived match (truncated, corrupt, another match's)."""


@runtime_checkable
class Archive(Protocol):
    """What the archiver and every reader of archived matches need from an archive.

    Every method given a match id that is not one (:func:`shared.ids.validate_match_id`)
    raises :class:`~shared.ids.InvalidMatchIdError`: an id never becomes a path or a key unchecked.
    """

    def put(self, match: ArchivedMatch) -> Receipt:
        """Keep ``match`` whole: after a crash either the old record (or none) or the new one is read.

        Idempotent: putting the same match again leaves an equal record.
        Raises :class:`ArchiveUnavailableError` when the archive cannot be written.
        """
        ...

    def get(self, match_id: str) -> ArchivedMatch | None:
        """The archived match, or None if none is kept under that id.

        Raises :class:`DamagedArchiveError` for a record that does not decode whole, and
        :class:`ArchiveUnavailableError` when the archive cannot be read.
        """
        ...

    def match_ids(self) -> Iterator[str]:
        """Every archived match's id (a restore walks them), in no promised order."""
        ...

    def check(self) -> None:
        """Return if the archive is reachable now; raise :class:`ArchiveUnavailableError` if not."""
        ...
