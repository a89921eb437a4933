"""``truc``: the operator's command-line tool (replay, audit, rebuild, unpark, export, import, archive, duel, erase).

Every command reads its settings from the environment like the services do
(``REDIS_URL``, ``QUEUE_URL``, ``DATA_DIR``: see shared/config.py).
"""
from __future__ import annotations

import os
import sys

import click

from shared.config import Config
from shared.observability import logs

from . import (
    account,
    archive_command,
    audit_command,
    duel_command,
    erase_command,
    play,
    ratings_command,
    rebuild_command,
    replay,
    rules_command,
    seek_command,
    transfer,
    unpark,
)
from .bidi import draws_isolates
from .untrusted import isolate_names


@click.group()
def truc() -> None:
    """Le Truc: play, seek, read the rules and see the leaderboard in the terminal; replay, audit, rebuild, unpark,
    export, import and archive matches; verify the ratings; duel bots."""


truc.add_command(replay.replay)
truc.add_command(play.play)
truc.add_command(account.login)
truc.add_command(account.matches)
truc.add_command(rules_command.rules)
truc.add_command(audit_command.audit)
truc.add_command(rebuild_command.rebuild)
truc.add_command(unpark.unpark)
truc.add_command(transfer.export)
truc.add_command(transfer.import_)
truc.add_command(archive_command.archive)
truc.add_command(erase_command.erase)
truc.add_command(duel_command.duel)
truc.add_command(ratings_command.ratings)
truc.add_command(seek_command.seek)
truc.add_command(seek_command.leaderboard)


def main() -> None:
    try:
        log_format = Config.from_env().log_format
    except ValueError:
        log_format = "text"  # the command itself says what is wrong with the settings
    logs.setup(log_format, "WARNING", service="cli")  # what the command says is its output; logs are warnings
    isolate_names(draws_isolates(os.environ, sys.stdout.isatty()))
    truc()
