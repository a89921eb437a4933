"""The event store: one Redis stream per match, appended with an expected version.

``EventStore`` is the port (:mod:`.port`), with two small companions a store also
implements: the projector's ``ProjectionMarks`` (:mod:`.marks`) and the idempotency
``AppendTokens`` (:mod:`.append_tokens`). ``InMemoryEventStore`` and ``RedisEventStore``
implement all three, held to one contract suite (tests/contract).
"""

from shared.eventstore.append_tokens import AppendToken, AppendTokens, TokenRecord
from shared.eventstore.durable import Acknowledgement
from shared.eventstore.marks import ProjectionMarks
from shared.eventstore.memory import InMemoryEventStore
from shared.eventstore.port import Appended, EventStore, NewEvent, StoredEvent
from shared.eventstore.redis_store import RedisEventStore
from shared.eventstore.store_errors import (
    ConcurrencyError,
    CorruptEventError,
    DuplicateAppendError,
    EventStoreError,
    NotDurableError,
)

__all__ = [
    "Acknowledgement",
    "AppendToken",
    "AppendTokens",
    "Appended",
    "ConcurrencyError",
    "CorruptEventError",
    "DuplicateAppendError",
    "EventStore",
    "EventStoreError",
    "InMemoryEventStore",
    "NewEvent",
    "NotDurableError",
    "ProjectionMarks",
    "RedisEventStore",
    "StoredEvent",
    "TokenRecord",
]
