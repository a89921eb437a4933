"""What every command connects to, from the environment (as the services do), and the match id it is given."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import click

from shared.config import Config
from shared.connect import connect
from shared.eventstore import RedisEventStore
from shared.keys import InvalidMatchIdError, validate_match_id
from shared.readmodels import ReadModels
from shared.seeds import SeedVault

from .untrusted import printable


@dataclass
class Backends:
    config: Config
    redis: Any
    store: RedisEventStore
    read_models: ReadModels
    seeds: SeedVault


def backends() -> Backends:
    config = Config.from_env()
    client = connect(config.redis_url)
    return Backends(config, client, RedisEventStore(client), ReadModels(client), SeedVault(client))


class MatchIdType(click.ParamType):
    """A match id argument: one that could be a key (a usage error otherwise, never a traceback)."""

    name = "match_id"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        try:
            return validate_match_id(value)
        except InvalidMatchIdError:
            self.fail(f"{printable(repr(value))} is not a match id (1-64 letters, digits, '_' or '-')", param, ctx)


MATCH_ID = MatchIdType()
