"""The audit of a re-chained match (:mod:`shared.rechaining`): its chain is checked as it is stored,
and each rewrite it recorded is reported, its heads held to the chain they name."""
from __future__ import annotations

from collections.abc import Sequence

from shared.eventstore.port import StoredEvent
from shared.rechaining import Rechaining

from .report import AuditReport


def check_rechainings(stored: Sequence[StoredEvent], records: Sequence[Rechaining], report: AuditReport) -> None:
    """Note every re-chaining, oldest first; fail unless each starts at the head the one before left
    and the latest one's new head is the stored chain's link at its version."""
    for before, after in zip(records, records[1:]):
        if after.old_head != before.new_head:
            report.fail(after.version, "chain", "a re-chaining starts from another head than the one before left")
            return
    if records:
        latest = records[-1]
        if len(stored) < latest.version or stored[latest.version - 1].hash != latest.new_head:
            report.fail(latest.version, "chain", "the stream is not chained as its last re-chaining recorded")
            return
    report.notes.extend(record.note() for record in records)
