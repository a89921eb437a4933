"""The stored-event envelope at the edges (HTTP responses, exports): one marshmallow schema.

Inside the services events are :class:`~shared.eventstore.port.StoredEvent`
values with ``at`` in epoch milliseconds; on the wire ``at`` is ISO-8601 UTC
with milliseconds (``2025-01-31T12:00:00.123Z``), which people and JSON tools read.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

from shared.eventstore.port import StoredEvent

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)


def iso_from_ms(ms: int) -> str:
    """Epoch milliseconds -> ``YYYY-MM-DDTHH:MM:SS.mmmZ`` (exact: no float rounding)."""
    moment = _EPOCH + ms * _MS
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def ms_from_iso(text: str) -> int:
    """ISO-8601 with a timezone -> epoch milliseconds; ValueError if it has none."""
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError("the timestamp needs a timezone (e.g. a trailing Z)")
    return (moment - _EPOCH) // _MS


class EpochMillis(fields.Field):
    """An ``int`` of epoch milliseconds inside, an ISO-8601 UTC string outside."""

    def _serialize(self, value: int | None, attr: str | None, obj: Any, **kwargs: Any) -> str | None:
        return None if value is None else iso_from_ms(value)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if not isinstance(value, str):
            raise ValidationError("Not a valid ISO-8601 timestamp.")
        try:
            return ms_from_iso(value)
        except ValueError as error:
            raise ValidationError(f"Not a valid ISO-8601 timestamp: {error}.") from error


class StoredEventSchema(Schema):
    """The envelope of one recorded event: ``version, type, schema_version, at, data, hash``."""

    version = fields.Integer(required=True, strict=True, validate=validate.Range(min=1))
    type = fields.String(required=True, validate=validate.Length(min=1))
    schema_version = fields.Integer(required=True, strict=True, validate=validate.Range(min=1))
    at = EpochMillis(required=True)
    data = fields.Dict(keys=fields.String(), required=True)
    hash = fields.String(load_default="", validate=validate.Regexp(r"^([0-9a-f]{64})?$"))


_SCHEMA = StoredEventSchema()


def event_to_json(stored: StoredEvent) -> dict[str, Any]:
    """Render a stored event as a JSON-ready dict (``at`` as ISO-8601 UTC, ms)."""
    rendered = _plain_envelope(stored)
    return _SCHEMA.dump(stored) if rendered is None else rendered


def event_from_json(match_id: str, payload: dict[str, Any]) -> StoredEvent:
    """Validate an envelope (raises marshmallow's ValidationError) into a StoredEvent."""
    loaded = _SCHEMA.load(payload)
    return StoredEvent(match_id=match_id, **loaded)


# --- Fast path ------------------------------------------------------------------------
# Every action response and history page renders its events, and the schema's dump costs
# ~10-14 us an event. What the stores return (ints, strings, a dict with string keys) is
# rendered below in plain Python to exactly what the schema dumps, same keys in the same
# order, ~4x faster; any other value is left to the schema, which converts it its own way.


def _plain_envelope(stored: StoredEvent) -> dict[str, Any] | None:
    """``_SCHEMA.dump(stored)`` for a well-typed event; None for one the schema must render."""
    data = stored.data
    if (type(stored.version) is not int or type(stored.type) is not str or type(stored.schema_version) is not int
            or type(stored.at) is not int or type(data) is not dict or type(stored.hash) is not str):
        return None
    for key in data:  # a plain loop: a third of the cost of any() over a generator
        if type(key) is not str:
            return None
    return {"version": stored.version, "type": stored.type, "schema_version": stored.schema_version,
            "at": iso_from_ms(stored.at), "data": dict(data), "hash": stored.hash}
