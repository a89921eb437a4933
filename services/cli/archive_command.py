"""``truc archive``: the archive, from the operator's tool (``status``; ``now [MATCH]``; ``backfill``; ``restore``).

A group, so commands about the archive sit together (``truc archive <command>``). The work
runs in this process, with the environment's Redis and archive, like ``truc unpark``.
"""
from __future__ import annotations

import click

from services.cli import archive_restore
from services.cli.backends import MATCH_ID
from shared.archive.archiving import Archiver
from shared.archive.backfill import BATCH
from shared.archive.backfill import backfill as listed_finished
from shared.archive.port import ArchiveUnavailableError
from shared.config import Config
from shared.connect import connect
from shared.eventstore.port import system_clock


def _archiver() -> Archiver:
    return Archiver.from_config(Config.from_env())


@click.group()
def archive() -> None:
    """The archive of finished matches: how far it is, and archiving now."""


@archive.command()
def status() -> None:
    """Matches archived, finished ones waiting (and overdue), the oldest's age, the archive's reachability."""
    archiver = _archiver()
    now = system_clock()
    lag, totals = archiver.due_list.lag(now - archiver.after_ms), archiver.totals.read()
    try:
        archiver.archive.check()
        reachable = "reachable"
    except ArchiveUnavailableError as error:
        reachable = f"unreachable ({error})"
    failures = ", ".join(f"{name.removeprefix('failed:')} {count}" for name, count in totals.items()
                         if name.startswith("failed:"))
    click.echo(f"archived: {totals['archived']} match(es), {totals['bytes']} bytes")
    click.echo(f"waiting: {lag.waiting} finished match(es), {lag.overdue} past ARCHIVE_AFTER "
               f"({archiver.after_ms // 1000} s); oldest ended {lag.oldest_age_seconds(now):.0f} s ago")
    click.echo(f"failures: {failures}")
    click.echo(f"archive: {reachable}")


@archive.command()
@click.argument("match_id", type=MATCH_ID, required=False)
def now(match_id: str | None) -> None:
    """Archive MATCH now (finished, however recently), or every match due; exit 1 if one failed."""
    archiver = _archiver()
    outcomes = [archiver.archive_one(match_id, force=True)] if match_id else archiver.archive_due(limit=10_000)
    for outcome in outcomes:
        detail = f" ({outcome.reason})" if outcome.reason else f" ({outcome.size} bytes)" if outcome.size else ""
        click.echo(f"{outcome.match_id}: {outcome.result}{detail}")
    if not outcomes:
        click.echo("No match is due.")
    if any(outcome.result == "failed" for outcome in outcomes):
        raise SystemExit(1)


archive.add_command(archive_restore.restore)


@archive.command()
@click.option("--batch", type=click.IntRange(1, 10_000), default=BATCH, show_default=True,
              help="Streams read per round trip.")
def backfill(batch: int) -> None:
    """List for the archive the finished matches that ended before the due list existed (safe to rerun)."""
    config = Config.from_env()
    found = listed_finished(connect(config.redis_url), batch)
    click.echo(f"streams: {found.streams}; finished: {found.finished}; newly listed: {found.listed} "
               f"({found.finished - found.listed} listed already)")
    for match_id in found.unreadable:
        click.echo(f"{match_id}: unreadable last event (truc audit {match_id})")
    if found.unreadable:
        raise SystemExit(1)
