"""What every command connects to, from the environment (as the services do), and the match id it is given."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any

import click

from shared.archive import Archive
from shared.archive.archived_reads import ArchivedReads, ArchivedSeeds, NoArchive, archive_of, archived_reads
from shared.archive.archived_summaries import ArchivedSummaries
from shared.config import Config
from shared.connect import connect
from shared.directory import names_in
from shared.eventstore import RedisEventStore
from shared.keys import InvalidMatchIdError, validate_match_id
from shared.readmodels import ReadModels
from shared.seeds import SeedVault

from .untrusted import printable


@dataclass
class Backends:
    config: Config
    redis: Any
    store: ArchivedReads  # the streams, and the matches archived out of them
    read_models: ReadModels
    seeds: ArchivedSeeds
    archive: Archive = field(default_factory=NoArchive)  # where the archived matches went


def backends() -> Backends:
    config = Config.from_env()
    client = connect(config.redis_url)
    archive = archive_of(config)
    store = archived_reads(RedisEventStore(client), client, archive)
    read_models = ReadModels(client, archived_summary=ArchivedSummaries(store, partial(names_in, client)))
    return Backends(config, client, store, read_models, ArchivedSeeds(SeedVault(client), store), archive)


class MatchIdType(click.ParamType):
    """A match id argument: one that could be a key (a usage error otherwise, never a traceback)."""

    name = "match_id"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        try:
            return validate_match_id(value)
        except InvalidMatchIdError:
            self.fail(f"{printable(repr(value))} is not a match id (1-64 letters, digits, '_' or '-')", param, ctx)


MATCH_ID = MatchIdType()
