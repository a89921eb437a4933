"""``truc export MATCH`` (JSON lines) and ``truc import FILE`` (checked and audited before anything is written).

An import is refused, with one sentence and a non-zero status, for a file this command
cannot read or whose ids and names the API would not accept (exit 2, see
:mod:`.exports`), and for a log the audit finds unlawful (exit 1). What it prints of the
file is made printable first: the file may have been written to attack the terminal.

An export written to a file (``-o``) is created for its owner alone (0600), and never over
an existing file unless ``--force`` says so (then written whole under a temporary name and
renamed over it). An export whose schema-1 events name a player erased here (the directory
remembers erasures by id) is stored without the name: those events as schema 2 records them,
the match re-chained, the rewrite recorded beside it for the audit (:mod:`shared.rechaining`).
A match still being played is exported with every hand dealt, the
hidden ones too: the command says so on stderr.
"""
from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any, NoReturn

import click

from services.projector.operations import ProjectorContext, rebuild_match
from shared.audit import audit_events
from shared.directory import enter_unknown
from shared.erasure import is_erased
from shared.eventstore import ConcurrencyError
from shared.eventstore.port import StoredEvent
from shared.fold import FoldedMatch, fold
from shared.private_files import private_output
from shared.rechaining import ERASED_BEFORE_IMPORT, Rechaining, names_out, remember
from shared.rules.chance import fits_commitment

from .backends import MATCH_ID, backends
from .exports import Export, ExportError, export_lines, read_export, seated_in
from .lang import lang_option, terminal
from .untrusted import printable


@click.command()
@click.argument("match_id", type=MATCH_ID)
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default="-",
              help="A new file to write, for its owner only (default: stdout).")
@click.option("--force", is_flag=True, help="Replace the output file if it exists.")
@click.option("--include-seed", is_flag=True,
              help="Also export the secret seed of an unfinished match, so it can be played on after import.")
@lang_option
def export(match_id: str, output: str, force: bool, include_seed: bool, lang: str) -> None:
    """Write MATCH as JSON lines: a header, then every event with its version, time and hash."""
    ctx, tr = backends(), terminal(lang)
    stored = ctx.store.read(match_id)
    if not stored:
        click.echo(f"no match {match_id!r}", err=True)
        sys.exit(1)
    names = ctx.read_models.names(seated_in(stored))  # the directory's now: an erased player's placeholder
    lines = export_lines(match_id, stored, ctx.seeds.get(match_id) if include_seed else None, names)
    if _live(match_id, stored):
        click.echo(tr.gettext("Match {match} is still being played: the export holds every hand, the hidden "
                              "ones too. Keep it private.", match=match_id), err=True)
    if output == "-":
        click.open_file("-", "wb").writelines(lines)
        return
    try:
        with private_output(Path(output), replace=force) as file:
            file.writelines(lines)
    except FileExistsError:
        click.echo(tr.gettext("{file} exists already: nothing was written (--force replaces it).",
                              file=printable(output)), err=True)
        sys.exit(1)
    except OSError as error:
        click.echo(f"{printable(output)}: {error.strerror}", err=True)
        sys.exit(1)


def _live(match_id: str, stored: Sequence[StoredEvent]) -> bool:
    """Whether the match is still waiting or being played (a stream the fold cannot read counts as live)."""
    try:
        return not fold(FoldedMatch(match_id), stored).status.over
    except Exception:  # a damaged stream is exported as it is, for whoever looks into it
        return True


@click.command("import")
@click.argument("source", type=click.File("rb"))
def import_(source: IO[bytes]) -> None:
    """Check and audit an exported match and, if it passes, write it into an empty stream and project it."""
    try:
        exported = read_export(source)
    except ExportError as error:
        _refuse(2, f"{error} ({error.code})")
    _audit(exported)
    ctx = backends()
    match_id = exported.match_id
    events, rechained = _names_erased_here(ctx.redis, exported)
    try:
        ctx.store.import_events(match_id, events)
    except ConcurrencyError:
        _refuse(1, f"match {match_id} already has events here")
    if rechained is not None:
        remember(ctx.redis, match_id, rechained)
        click.echo(f"{match_id} names a player erased here: stored without the name, re-chained "
                   f"(head {rechained.old_head[:12]}… became {rechained.new_head[:12]}…)")
    if exported.seed is not None:
        ctx.seeds.put(match_id, exported.seed)
    enter_unknown(ctx.redis, exported.names)
    rebuild_match(match_id, ProjectorContext(ctx.store, ctx.read_models))
    parked = ctx.read_models.parked.get(match_id)
    if parked is not None:
        _refuse(1, f"imported {match_id}, but its read models could not be written: {printable(parked.error)}")
    click.echo(f"imported {match_id}: {len(exported.events)} events, audit passed")


def _names_erased_here(client: Any, exported: Export) -> tuple[list[StoredEvent], Rechaining | None]:
    """The events to store: as exported, or, where schema-1 events name a player erased here (the
    directory remembers erasures by id), without the name and re-chained, with the record of it."""
    erased = {player_id for player_id in seated_in(exported.events) if is_erased(client, player_id)}
    rewritten = names_out(exported.match_id, exported.events, erased)
    if rewritten is None:
        return exported.events, None
    old_head, new_head = exported.events[-1].hash, rewritten[-1].hash
    return rewritten, Rechaining(old_head, new_head, len(rewritten), int(time.time() * 1000), ERASED_BEFORE_IMPORT)


def _audit(exported: Export) -> None:
    """Refuse the import (exit 1) unless the audit passes and any exported seed is the committed one."""
    stored, seed = exported.events, exported.seed
    report = audit_events(exported.match_id, stored)
    if report.ok and seed is not None and not fits_commitment(seed, stored[0].data.get("seed_commitment")):
        report.fail(1, "seed", "the exported seed does not match the match's commitment")
    if not report.ok:
        first = report.failures[0]
        _refuse(1, f"v{first.version} {first.check}: {printable(first.message)}")


def _refuse(status: int, sentence: str) -> NoReturn:
    click.echo(f"refused: {sentence}", err=True)
    sys.exit(status)
