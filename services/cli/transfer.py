"""``truc export MATCH`` (JSON lines) and ``truc import FILE`` (audited before anything is written)."""
from __future__ import annotations

import sys
from typing import IO

import click
import orjson
from marshmallow import ValidationError

from shared.audit import audit_events
from shared.eventstore import ConcurrencyError
from shared.eventstore.schema import event_from_json, event_to_json
from shared.readmodels.catching_up import ProjectorContext, rebuild_match
from shared.rules.chance import fits_commitment

from .context import backends

FORMAT = "truc-match/1"


@click.command()
@click.argument("match_id")
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
    """Audit an exported match and, if it passes, write it into an empty stream and project it."""
    try:
        lines = [orjson.loads(line) for line in source if line.strip()]
        header = lines[0]
        if header.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} export")
        match_id = header["match_id"]
        stored = [event_from_json(match_id, line) for line in lines[1:]]
        if not stored:
            raise ValueError("the export holds no event")
    except (IndexError, KeyError, TypeError, AttributeError, ValueError, ValidationError) as error:
        click.echo(f"unreadable export: {error}", err=True)
        sys.exit(2)
    report = audit_events(match_id, stored)
    seed = header.get("seed")
    if report.ok and seed is not None and not fits_commitment(seed, stored[0].data.get("seed_commitment")):
        report.fail(1, "seed", "the exported seed does not match the match's commitment")
    if not report.ok:
        first = report.failures[0]
        click.echo(f"refused: v{first.version} {first.check}: {first.message}", err=True)
        sys.exit(1)
    ctx = backends()
    try:
        ctx.store.import_events(match_id, stored)
    except ConcurrencyError:
        click.echo(f"refused: match {match_id} already has events here", err=True)
        sys.exit(1)
    if seed is not None:
        ctx.seeds.put(match_id, seed)
    rebuild_match(match_id, ProjectorContext(ctx.store, ctx.read_models))
    click.echo(f"imported {match_id}: {len(stored)} events, audit passed")
