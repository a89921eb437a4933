"""``truc``: the operator's command-line tool (replay, audit, rebuild, unpark, export, import, archive, erase).

Every command reads its settings from the environment like the services do
(``REDIS_URL``, ``QUEUE_URL``, ``DATA_DIR``: see shared/config.py).
"""
from __future__ import annotations

import click

from shared.config import Config
from shared.observability import logs

from . import archive_command, audit_command, erase_command, play, rebuild_command, replay, transfer, unpark


@click.group()
def truc() -> None:
    """Le Truc: play in the terminal, and replay, audit, rebuild, unpark, export, import and archive matches."""


truc.add_command(replay.replay)
truc.add_command(play.play)
truc.add_command(audit_command.audit)
truc.add_command(rebuild_command.rebuild)
truc.add_command(unpark.unpark)
truc.add_command(transfer.export)
truc.add_command(transfer.import_)
truc.add_command(archive_command.archive)
truc.add_command(erase_command.erase)


def main() -> None:
    try:
        log_format = Config.from_env().log_format
    except ValueError:
        log_format = "text"  # the command itself says what is wrong with the settings
    logs.setup(log_format, "WARNING", service="cli")  # what the command says is its output; logs are warnings
    truc()
