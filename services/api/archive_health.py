"""The archive as ``/health`` and ``/metrics`` report it: reachable or not, and how far archiving is.

An unreachable archive only delays archiving (finished matches stay whole in Redis and are
read there): ``/health`` says ``degraded`` with ``archive.reachable: false``, never 503. The
check may cost a round trip to another service, so each process asks at most every
``CHECK_SECONDS``.
"""
from __future__ import annotations

import threading
import time
from typing import Any

from shared.archive.due import DueMatches
from shared.archive.port import Archive
from shared.archive.totals import ArchiveTotals
from shared.eventstore.port import system_clock

CHECK_SECONDS = 5.0


class ArchiveHealth:
    """The archive's reachability (checked at most every CHECK_SECONDS) and its figures in Redis."""

    def __init__(self, archive: Archive, client: Any, after_seconds: int) -> None:
        self._archive, self._due, self._totals = archive, DueMatches(client), ArchiveTotals(client)
        self._after_ms = after_seconds * 1000
        self._lock = threading.Lock()
        self._checked: tuple[float, bool] | None = None

    def reachable(self) -> bool:
        """Whether the archive answered its last check."""
        with self._lock:
            checked = self._checked
        if checked is None or time.monotonic() - checked[0] >= CHECK_SECONDS:
            try:
                self._archive.check()
                ok = True
            except Exception:  # noqa: BLE001 - an unreachable archive is a figure, never a failure
                ok = False
            checked = (time.monotonic(), ok)
            with self._lock:
                self._checked = checked
        return checked[1]

    def report(self) -> dict[str, Any]:
        """``/health``'s ``archive`` field."""
        now = system_clock()
        lag = self._due.lag(now - self._after_ms)
        return {"reachable": self.reachable(), "waiting": lag.waiting, "overdue": lag.overdue,
                "oldest_age_seconds": round(lag.oldest_age_seconds(now), 1)}

    def readings(self) -> list[tuple[str, str, dict[str, str], float]]:
        """The gauges of ``/metrics``."""
        report, totals = self.report(), self._totals.read()
        failures = [("truc_archive_failures", "Archiving attempts failed, by reason (all archivers).",
                     {"reason": name.removeprefix("failed:")}, count)
                    for name, count in totals.items() if name.startswith("failed:")]
        return failures + [
            ("truc_archived_matches", "Matches moved from Redis to the archive (all archivers).", {},
             totals["archived"]),
            ("truc_archive_bytes", "Bytes the archived matches take in the archive.", {}, totals["bytes"]),
            ("truc_archive_waiting_matches", "Finished matches not archived yet.", {}, report["waiting"]),
            ("truc_archive_overdue_matches", "Finished matches past ARCHIVE_AFTER, not archived yet.", {},
             report["overdue"]),
            ("truc_archive_oldest_age_seconds", "How long ago the oldest match not archived yet ended.", {},
             report["oldest_age_seconds"]),
            ("truc_archive_reachable", "1 if the archive answered its check.", {}, float(report["reachable"])),
        ]
