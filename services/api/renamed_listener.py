"""This process's ear for renamed and erased players: the archived lines and records it keeps forgotten.

The lobby lines of archived matches (:class:`~shared.archive.archived_summaries.ArchivedSummaries`)
are folded from the archive and kept a while, named as the directory named the players then;
the archived records read lately (:class:`~shared.archive.archived_reads.ArchivedMatchCache`) carry
their players' names in their header. A rename or an erasure anywhere publishes the player's id on
``keys.PLAYERS_RENAMED`` (:mod:`shared.readmodels.renaming`); hearing it, or (re)subscribing, or
losing the channel, this process forgets both: renames are rare, and a line is folded again cheaply.

The channel is wanted while anything is kept; the first line kept starts the subscriber, and a
rename published before the subscription is confirmed is covered by the confirmation's forgetting.
"""
from __future__ import annotations

from shared import keys
from shared.archive.archived_reads import ArchivedMatchCache
from shared.archive.archived_summaries import ArchivedSummaries
from shared.subscriber import Subscriber


class NameChanges:
    """Keeps ``lines`` and ``records`` free of names changed since, by what ``subscriber`` hears."""

    def __init__(self, subscriber: Subscriber) -> None:
        self._subscriber = subscriber
        self.lines: ArchivedSummaries | None = None
        self.records: ArchivedMatchCache | None = None
        subscriber.on(keys.PLAYERS_RENAMED, self._heard, self._wanted, self._heard_nothing)

    def kept(self) -> None:
        """Something was kept: hear the renames from now on (no I/O once the subscriber runs)."""
        self._subscriber.start()

    def _heard(self, message: str | None) -> None:
        self._forget()

    def _heard_nothing(self) -> None:
        self._forget()

    def _forget(self) -> None:
        if self.lines is not None:
            self.lines.forget()
        if self.records is not None:
            self.records.clear()

    def _wanted(self) -> bool:
        return bool((self.lines is not None and len(self.lines)) or (self.records is not None and len(self.records)))
