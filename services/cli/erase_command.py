"""``truc erase PLAYER``: the operator's erasure of a player, as ``DELETE /players/me`` does it.

The player's tokens stop working on every API process, their name is replaced everywhere it is
shown by a placeholder, and their unfinished matches are resigned (R31; a waiting match they
created is cancelled), or, with ``ERASE_IN_MATCH=refuse``, the erasure is refused until they end.
Each match left is projected here, at once, as ``truc import`` projects what it writes.
"""
from __future__ import annotations

import sys

import click

from services.projector.operations import ProjectorContext, rebuild_match
from shared.erasure import InAMatchError, erase_player
from shared.identity import InvalidPlayerIdError, validate_player_id

from .backends import backends


@click.command()
@click.argument("player_id")
def erase(player_id: str) -> None:
    """Erase PLAYER (an id): tokens revoked, name replaced by a placeholder, unfinished matches resigned."""
    try:
        validate_player_id(player_id)
    except InvalidPlayerIdError:
        click.echo(f"{player_id!r} is not a player id (1-64 letters, digits, '_' or '-')", err=True)
        sys.exit(2)
    ctx = backends()
    context = ProjectorContext(ctx.store, ctx.read_models)
    try:
        erased = erase_player(ctx.redis, ctx.store, ctx.archive, player_id,
                              lambda match_id: rebuild_match(match_id, context),
                              resign=ctx.config.erase_in_match == "resign")
    except InAMatchError as seated:
        click.echo(f"refused: player {player_id} still plays in match {seated.match_id} (ERASE_IN_MATCH=refuse)",
                   err=True)
        sys.exit(1)
    if erased is None:
        click.echo(f"no player {player_id!r}", err=True)
        sys.exit(1)
    click.echo(f"erased {player_id}: now shown as {erased.placeholder!r}")
