"""Reading back a Redis stream entry as a StoredEvent, whether the client decodes responses or not."""

from __future__ import annotations

from typing import Any

from shared.eventstore.port import StoredEvent, decode_data
from shared.eventstore.store_errors import CorruptEventError


def text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def to_stored(match_id: str, entry_id: bytes | str, fields: dict[Any, Any]) -> StoredEvent:
    """Decode one XRANGE entry, whether the client decodes responses or not."""
    version = 0
    try:
        version = int(entry_id.split(b"-" if type(entry_id) is bytes else "-", 1)[0])
        if b"t" in fields:  # raw bytes, as the services' clients answer: no renaming needed
            return StoredEvent(match_id, version, fields[b"t"].decode(), int(fields[b"s"]), int(fields[b"at"]),
                               decode_data(fields[b"d"]), fields.get(b"h", b"").decode())
        by_name = {text(name): value for name, value in fields.items()}
        return StoredEvent(
            match_id=match_id,
            version=version,
            type=text(by_name["t"]),
            schema_version=int(by_name["s"]),
            at=int(by_name["at"]),
            data=decode_data(by_name["d"]),
            hash=text(by_name.get("h", b"")),
        )
    except (KeyError, ValueError, UnicodeDecodeError) as error:  # orjson's decode error is a ValueError
        raise CorruptEventError(match_id, version, error) from None
