"""``truc rebuild``: rebuild every read model from the event streams, with no downtime.

The work is done by the projector's rebuild (:mod:`services.projector.operations`); this only wires it to the
environment's Redis and queue and shows its progress. Its messages and errors may quote
what a stream holds (a match or player id, an error about either), so they are printed as
plain text, never as markup or terminal escapes.
"""
from __future__ import annotations

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from services.cli.backends import backends
from services.cli.untrusted import markup_text, printable
from services.projector.operations import (
    Rebuild,
    RebuildError,
    RebuildLockError,
    RebuildOptions,
    RebuildReport,
    rebuild_queue,
)
from shared.connect import connect
from shared.readmodels.parked import ParkedMatch


@click.command()
@click.option("--batch-size", type=click.IntRange(min=1), default=RebuildOptions.batch_size,
              show_default=True, help="Matches per job.")
@click.option("--inline", is_flag=True,
              help="Fold in this process, not on the projector workers (automatic when none is running).")
@click.option("--keep-old", is_flag=True, help="Keep the old generation's keys after the switch.")
@click.option("--grace-seconds", type=click.FloatRange(min=0), default=RebuildOptions.grace_seconds,
              show_default=True, help="Wait this long after the switch before dropping the old generation.")
@click.option("--stall-seconds", type=click.FloatRange(min=1), default=RebuildOptions.stall_seconds,
              show_default=True, help="Give up when no job finishes for this long.")
@click.option("--force", is_flag=True, help="Take over from a rebuild that crashed (never while one runs).")
def rebuild(
    batch_size: int, inline: bool, keep_old: bool, grace_seconds: float, stall_seconds: float, force: bool,
) -> None:
    """Rebuild every read model from the event streams, then switch reads to them at once.

    The new read models are built beside the ones being served (a new generation) while
    live play goes on; reads move over in one atomic step once it is complete.
    """
    options = RebuildOptions(batch_size=batch_size, inline=inline, keep_old=keep_old,
                             grace_seconds=grace_seconds, stall_seconds=stall_seconds, force=force)
    ctx = backends()
    queue = rebuild_queue(connect(ctx.config.queue_url), ctx.config.queue_name)
    console = Console(highlight=False, emoji=False)
    with _progress_bar(console) as bar:
        task = bar.add_task("Folding matches", total=None)
        job = Rebuild(ctx.store, ctx.read_models, queue, options,
                      progress=lambda done, total: bar.update(task, completed=done, total=total),
                      say=lambda message: bar.console.print(markup_text(message), soft_wrap=True))
        try:
            report = job.run()
        except (RebuildError, RebuildLockError) as error:
            raise click.ClickException(printable(error)) from error
    console.print(_summary(report), soft_wrap=True)
    _show_parked(console, ctx.read_models.parked.current(ctx.read_models))


def _progress_bar(console: Console) -> Progress:
    return Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=console, transient=False,
    )


def _show_parked(console: Console, parked: list[ParkedMatch]) -> None:
    """The matches the read models leave out: they cannot be folded or written (GET /health lists them too)."""
    if not parked:
        return
    console.print(f"[yellow]{len(parked)} match(es) parked, their read models left behind:[/yellow]")
    for record in parked:
        console.print(f"  {markup_text(record.match)} at event {record.version}: {markup_text(record.error)}",
                      soft_wrap=True)


def _summary(report: RebuildReport) -> str:
    where = f"{report.workers} worker(s)" if report.workers else "this process"
    return (
        f"Rebuilt generation {report.generation}: {report.matches} match(es), {report.events} event(s) "
        f"in {report.build_seconds:.2f} s ({report.events_per_second:,.0f} events/s) on {where}."
    )


if __name__ == "__main__":
    rebuild()
