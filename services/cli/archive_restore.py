"""``truc archive restore``: put every archived match back into Redis (after Redis was lost).

Each match the archive holds gets its stream back, verbatim (versions, times, chain
hashes), its seed, and its read models rebuilt; its index entry goes, so it reads as a
match in Redis again. A match Redis holds already is left as it is, so a restore can be
run again after it stopped half way.
"""
from __future__ import annotations

import click

from services.projector.operations import ProjectorContext, rebuild_match
from shared.archive import ArchiveUnavailableError, DamagedArchiveError
from shared.directory import enter_unknown
from shared.eventstore import ConcurrencyError

from .backends import Backends, backends
from .untrusted import printable


@click.command()
def restore() -> None:
    """Import every archived match's events and seed back into Redis and rebuild its read models."""
    ctx = backends()
    restored = kept = 0
    try:
        for match_id in sorted(ctx.archive.match_ids()):
            if _restore(ctx, match_id):
                restored += 1
            else:
                kept += 1
    except (ArchiveUnavailableError, DamagedArchiveError) as error:
        raise click.ClickException(f"restore stopped after {restored} match(es): {printable(error)}") from error
    click.echo(f"restored {restored} match(es) from the archive; {kept} already in Redis, left as they were")


def _restore(ctx: Backends, match_id: str) -> bool:
    """Put one archived match back; False if Redis holds its stream already."""
    streams = ctx.store.streams
    match = ctx.archive.get(match_id)
    if match is None:
        raise DamagedArchiveError(f"the archive lists {match_id!r} but holds no record of it")
    try:
        streams.import_events(match_id, match.events)
    except ConcurrencyError:  # back already (a restore stopped before forgetting its entry: forget it now)
        if streams.version(match_id) == match.count:
            ctx.store.index.remove(match_id)
        return False
    if match.seed is not None:
        ctx.seeds.put(match_id, match.seed)
    enter_unknown(ctx.redis, dict(match.players))  # as an import does: a known player keeps their name
    ctx.store.index.remove(match_id)  # after the stream is back: a read finds the match all along
    rebuild_match(match_id, ProjectorContext(streams, ctx.read_models))
    return True
