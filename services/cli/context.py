"""What every command connects to, from the environment (as the services do)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from shared.config import Config
from shared.connect import connect
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels
from shared.seeds import SeedVault


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
