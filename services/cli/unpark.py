"""``truc unpark MATCH``: retry a parked match now, e.g. after a deploy that reads its event.

The same as ``python -m services.projector unpark MATCH``, from the operator's tool: the
match is caught up in this process, with the environment's Redis.
"""
from __future__ import annotations

import click

from services.cli.backends import MATCH_ID
from services.cli.untrusted import printable
from services.projector.operations import ProjectorContext
from services.projector.operations import unpark as retry
from shared.config import Config


@click.command()
@click.argument("match_id", type=MATCH_ID)
def unpark(match_id: str) -> None:
    """Retry a parked match now; exit 1 if it is still parked (and say why)."""
    record = retry(match_id, ProjectorContext.from_config(Config.from_env()))
    if record is None:
        click.echo(f"Match {match_id} is caught up.")
        return
    click.echo(f"Match {match_id} is still parked at event {record.version}: {printable(record.error)}", err=True)
    raise SystemExit(1)
