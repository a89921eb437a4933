"""The event store: one Redis stream per match, appended with an expected version.

``EventStore`` is the port; ``InMemoryEventStore`` and ``RedisEventStore`` are its
two implementations, held to one contract suite (tests/contract).
"""

from shared.eventstore.memory import InMemoryEventStore
from shared.eventstore.model import (
    AppendToken,
    ConcurrencyError,
    CorruptEventError,
    DuplicateAppendError,
    EventStore,
    EventStoreError,
    NewEvent,
    StoredEvent,
    TokenRecord,
)
from shared.eventstore.redis_store import RedisEventStore

__all__ = [
    "AppendToken",
    "ConcurrencyError",
    "CorruptEventError",
    "DuplicateAppendError",
    "EventStore",
    "EventStoreError",
    "InMemoryEventStore",
    "NewEvent",
    "RedisEventStore",
    "StoredEvent",
    "TokenRecord",
]
