"""``truc ratings verify``: refold every rated result from the event streams and compare with the ratings served.

An operator's check, like ``truc audit``: it reads the streams and the read model and writes
nothing. Its lines quote ids from the streams, so they are printed as plain text.
"""
from __future__ import annotations

import click

from shared.readmodels.rating_audit import results_from_streams, verify

from .backends import backends
from .untrusted import printable


@click.group()
def ratings() -> None:
    """The Glicko-2 ratings read model."""


@ratings.command("verify")
def verify_ratings() -> None:
    """Refold every rated result from the events; exit 1 if the served ratings differ."""
    ctx = backends()
    served = ctx.read_models.ratings()
    served.settle()  # a folder that died left results waiting: they are the read model's, not a difference
    report = verify(results_from_streams(ctx.store, ctx.store.match_ids()), served)
    for difference in report.differences:
        click.echo(printable(difference))
    click.echo(f"{report.results} rated result(s), {report.players} player(s): "
               + ("the served ratings equal the refold." if report.ok else f"{len(report.differences)} difference(s)."))
    if not report.ok:
        raise SystemExit(1)
