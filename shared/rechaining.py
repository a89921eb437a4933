"""An erased player's name taken out of the schema-1 events that recorded it, and the match re-chained.

Schema 1 seated a player by id *and* name (``match_created.creator_name``,
``player_joined.player_name``); schema 2 by id only. The upcaster hides such a name from every
reader, but its bytes stay in the stream, inside the hash chain. An erasure therefore rewrites
each such stream once: the events naming the erased player become what schema 2 records of
them (the upcaster's own step: same versions, times and data otherwise), every link of the
chain is computed again over the events as they now are, and the match keeps a record of the
rewrite (:class:`Rechaining`: the head before, the head after, when and why), which the audit
reports. The rewrite is one script on the match's slot, refused if anything was appended
since it was read, so no event is lost and no append links to a head that is gone.

A re-chained match is only as tamper-evident as its new chain, from the rewrite on: an export
taken before still audits on its own chain, and the record ties its head to the new one.
"""
from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import orjson

from shared import keys
from shared.codec.event_versions import UPCASTERS
from shared.eventstore import lua
from shared.eventstore.chain import chain_hash, genesis_hash
from shared.eventstore.entries import to_stored
from shared.eventstore.port import StoredEvent, encode_data

ERASURE = "erasure"  # a player of the match was erased here
ERASED_BEFORE_IMPORT = "erased before import"  # an imported match named a player erased here
_NAMING = {"match_created": ("creator_id", "creator_name"), "player_joined": ("player_id", "player_name")}
_ATTEMPTS = 20


@dataclass(frozen=True)
class Rechaining:
    """One rewrite of a match's chain: the head it had, the head it got (the hash of event ``version``)."""

    old_head: str
    new_head: str
    version: int
    at: int  # epoch ms
    reason: str

    def encode(self) -> bytes:
        return orjson.dumps(asdict(self))

    @classmethod
    def decode(cls, raw: bytes | str) -> Rechaining:
        return cls(**orjson.loads(raw))

    def note(self) -> str:
        """The audit's sentence for it."""
        return (f"re-chained at v{self.version} ({self.reason}): head {self.old_head[:12]}… "
                f"became {self.new_head[:12]}…")


def names(event: StoredEvent, player_ids: Collection[str]) -> bool:
    """Whether ``event`` is a schema-1 seating that records the name of one of ``player_ids``."""
    id_field, name_field = _NAMING.get(event.type, ("", ""))
    return bool(id_field) and name_field in event.data and event.data.get(id_field) in player_ids


def names_out(match_id: str, events: Sequence[StoredEvent], player_ids: Collection[str]) -> list[StoredEvent] | None:
    """The events with every one naming ``player_ids`` as schema 2 records it, chained again;
    None if none names them (nothing to rewrite)."""
    if not any(names(event, player_ids) for event in events):
        return None
    previous, rewritten = genesis_hash(match_id), []
    for event in events:
        if names(event, player_ids):
            data = UPCASTERS.upcast(event.type, event.schema_version, event.data)
            event = replace(event, schema_version=UPCASTERS.current(event.type), data=data)
        previous = chain_hash(previous, event.version, event.type, event.schema_version, event.at,
                              encode_data(event.data))
        rewritten.append(replace(event, hash=previous))
    return rewritten


def rechainings(client: Any, match_id: str) -> list[Rechaining]:
    """The match's re-chainings, oldest first."""
    return [Rechaining.decode(raw) for raw in client.lrange(keys.match_rechained(match_id), 0, -1)]


def remember(client: Any, match_id: str, rechaining: Rechaining) -> None:
    """Record a re-chaining done elsewhere than in the stream (an archived record, an import)."""
    client.rpush(keys.match_rechained(match_id), rechaining.encode())


def rechain_stream(client: Any, match_id: str, player_ids: Collection[str], reason: str,
                   now_ms: int) -> Rechaining | None:
    """Rewrite the match's stream without the names of ``player_ids`` (see the module doc); the
    re-chaining recorded, or None if its stream names none of them (or it has no stream)."""
    for _ in range(_ATTEMPTS):
        events = [to_stored(match_id, entry_id, fields)
                  for entry_id, fields in client.xrange(keys.match_events(match_id))]
        rewritten = names_out(match_id, events, player_ids)
        if rewritten is None:
            return None
        done = Rechaining(events[-1].hash, rewritten[-1].hash, len(events), now_ms, reason)
        args: list[Any] = [len(events), events[-1].hash, done.encode()]
        for event in rewritten:
            args += [event.type, event.schema_version, event.at, encode_data(event.data), event.hash]
        script_keys = [keys.match_events(match_id), keys.match_rewriting(match_id), keys.match_rechained(match_id)]
        if int(lua.RECHAIN(client, script_keys, args)):
            return done
    raise RuntimeError(f"match {match_id} kept changing while it was re-chained")
