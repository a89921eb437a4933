"""What a projector job works with: the two ports, and the fold cache of this process."""

from __future__ import annotations

from dataclasses import dataclass, field

from shared.archive.archived_reads import archive_of, archived_reads
from shared.config import Config
from shared.connect import connect
from shared.eventstore import RedisEventStore
from shared.eventstore.marks import MarkedEventStore
from shared.eventstore.port import EventStore
from shared.fold import PAGE_SIZE, FoldCache
from shared.readmodels.port import ReadSide
from shared.readmodels.served import ReadModels


@dataclass
class ProjectorContext:
    """What a job works with: the event store, the read-model store and the fold cache (ports:
    Redis adapters from ``from_config``, in-memory ones in tests)."""

    store: MarkedEventStore
    readmodels: ReadSide
    cache: FoldCache = field(default_factory=FoldCache)
    page_size: int = PAGE_SIZE
    linger_seconds: float = 0.0  # how long a catch-up drain waits for more appends to batch
    busy_linger_seconds: float = 0.0  # the same, while its lane stays busy (see services.projector.drain)
    history: EventStore | None = None  # what a rebuild folds: the streams and the archived matches (None: store)

    @classmethod
    def from_config(cls, config: Config) -> ProjectorContext:
        """Connect to the Redis of ``config`` (events and read models share it): the adapters' factory."""
        client = connect(config.redis_url)
        store = RedisEventStore(client)
        return cls(
            store, ReadModels(client), linger_seconds=config.catch_up_linger_ms / 1000,
            busy_linger_seconds=config.catch_up_busy_linger_ms / 1000,
            history=archived_reads(store, client, archive_of(config)),
        )
