"""``truc audit MATCH`` / ``truc audit --all``: verify matches end to end; non-zero exit on any failure."""
from __future__ import annotations

import sys
from collections.abc import Sequence

import click
from rich.console import Console
from rich.table import Table

from shared.archive import ArchiveUnavailableError, DamagedArchiveError
from shared.archive.archived_reads import is_archived
from shared.audit import AuditReport, audit_events, check_rechainings
from shared.eventstore import CorruptEventError, EventStore
from shared.fold import FoldedMatch, fold
from shared.readmodels import AUDIENCES, ReadModels
from shared.readmodels.projection import read_models_of, seated_ids
from shared.rechaining import Rechaining, rechainings

from .backends import MATCH_ID, backends
from .untrusted import markup_text


def audit_match(store: EventStore, read_models: ReadModels, match_id: str,
                lobby_seconds: int | None = None, rechained: Sequence[Rechaining] = ()) -> AuditReport:
    """The event-log audit, plus: the read models equal a fresh fold of the stream, and the
    match's ``rechained`` records fit its chain (each noted).

    ``lobby_seconds``: the server's ``LOBBY_SECONDS`` when the operator gives it (the log
    does not record it), to hold lobby expiries to it.
    """
    try:
        stored = store.read(match_id)
    except CorruptEventError as error:
        report = AuditReport(match_id, store.version(match_id))
        report.fail(error.version, "versions", f"unreadable entry: {error}")
        return report
    except (ArchiveUnavailableError, DamagedArchiveError) as error:
        report = AuditReport(match_id, store.version(match_id))
        report.fail(0, "archive", f"the archived match cannot be read: {error}")
        return report
    report = audit_events(match_id, stored, lobby_seconds)
    check_rechainings(stored, rechained, report)
    if not report.ok or not stored or is_archived(store, match_id):
        return report  # an archived match has no stored views: they are rendered from these events
    served = read_models.at(read_models.generation())  # one generation for every comparison below
    projected = served.projected_version(match_id)
    if projected > len(stored):  # the projector saw events the stream no longer has
        report.fail(len(stored) + 1, "versions", f"the read models saw version {projected}: the stream lost its tail")
        return report
    if projected < len(stored):
        report.notes.append(f"read models {len(stored) - projected} event(s) behind (projector lag): not compared")
        return report
    folded = fold(FoldedMatch(match_id), stored)  # the events in hand, not a second read
    fresh = read_models_of(folded, read_models.names(seated_ids(folded.state)))
    for audience in AUDIENCES:
        if served.view(match_id, audience) != fresh.views[audience]:
            report.fail(projected, "read_models", f"the {audience} view differs from a fresh fold of the stream")
            break
    return report


def _render(console: Console, reports: list[AuditReport]) -> None:
    """The reports as a table; what they quote of a stream (names, types) is printed as plain text."""
    table = Table(title="truc audit", show_lines=False)
    for column in ("match", "events", "result", "first bad event", "notes"):
        table.add_column(column)
    for report in reports:
        first = report.failures[0] if report.failures else None
        table.add_row(
            markup_text(report.match_id), str(report.events),
            "[green]ok[/green]" if report.ok else "[red]FAILED[/red]",
            markup_text(f"v{first.version} {first.check}: {first.message}") if first else "",
            markup_text("; ".join(report.notes)),
        )
    console.print(table)


@click.command()
@click.argument("match_id", type=MATCH_ID, required=False)
@click.option("--all", "every", is_flag=True, help="Audit every match in the store.")
@click.option("--lobby-seconds", type=click.IntRange(min=1),
              help="The server's LOBBY_SECONDS: also check that an expired match waited that long.")
def audit(match_id: str | None, every: bool, lobby_seconds: int | None) -> None:
    """Verify MATCH (or --all): gapless versions, intact hash chain, every event re-derived by the
    rules from the recorded actions and the service's timeouts and expiries (each timeout at or
    after its deadline), every deal recomputed from the revealed seed, read models equal to a
    fresh fold. Exits 1 on any failure, naming the first bad event."""
    if bool(match_id) == every:
        raise click.UsageError("give a MATCH id or --all")
    ctx = backends()
    ids = sorted(ctx.store.match_ids()) if every else [match_id]
    reports = [audit_match(ctx.store, ctx.read_models, m, lobby_seconds, rechainings(ctx.redis, m)) for m in ids]
    if not every and reports[0].events == 0:
        click.echo(f"no match {match_id!r}", err=True)
        sys.exit(1)
    _render(Console(width=200, highlight=False, emoji=False), reports)
    failed = [r for r in reports if not r.ok]
    click.echo(f"{len(reports) - len(failed)} passed, {len(failed)} failed")
    sys.exit(1 if failed else 0)
