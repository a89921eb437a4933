"""``truc export MATCH`` (JSON lines) and ``truc import FILE`` (checked and audited before anything is written).

An import is refused, with one sentence and a non-zero status, for a file this command
cannot read or whose ids and names the API would not accept (exit 2, see
:mod:`.exports`), and for a log the audit finds unlawful (exit 1). What it prints of the
file is made printable first: the file may have been written to attack the terminal.
"""
from __future__ import annotations

import sys
from typing import IO, NoReturn

import click
import orjson

from shared.audit import audit_events
from shared.eventstore import ConcurrencyError
from shared.eventstore.schema import event_to_json
from shared.readmodels.catching_up import ProjectorContext, rebuild_match
from shared.readmodels.parked import ParkedMatches
from shared.rules.chance import fits_commitment

from .context import MATCH_ID, backends
from .exports import FORMAT, Export, ExportError, read_export
from .untrusted import printable


@click.command()
@click.argument("match_id", type=MATCH_ID)
@click.option("-o", "--output", type=click.File("wb"), default="-", help="Where to write (default: stdout).")
@click.option("--include-seed", is_flag=True,
              help="Also export the secret seed of an unfinished match, so it can be played on after import.")
def export(match_id: str, output: IO[bytes], include_seed: bool) -> None:
    """Write MATCH as JSON lines: a header, then every event with its version, time and hash."""
    ctx = backends()
    stored = ctx.store.read(match_id)
    if not stored:
        click.echo(f"no match {match_id!r}", err=True)
        sys.exit(1)
    header = {"format": FORMAT, "match_id": match_id, "events": len(stored),
              "seed": ctx.seeds.get(match_id) if include_seed else None}
    output.write(orjson.dumps(header) + b"\n")
    for event in stored:
        output.write(orjson.dumps(event_to_json(event)) + b"\n")


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
    try:
        ctx.store.import_events(match_id, exported.events)
    except ConcurrencyError:
        _refuse(1, f"match {match_id} already has events here")
    if exported.seed is not None:
        ctx.seeds.put(match_id, exported.seed)
    rebuild_match(match_id, ProjectorContext(ctx.store, ctx.read_models))
    parked = ParkedMatches(ctx.redis).get(match_id)
    if parked is not None:
        _refuse(1, f"imported {match_id}, but its read models could not be written: {printable(parked.error)}")
    click.echo(f"imported {match_id}: {len(exported.events)} events, audit passed")


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
