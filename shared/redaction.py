"""Recorded events rendered for one audience: the audit log, action responses and replays.

Serialisation only. What an audience may see of each event is the rules engine's to say
(``shared.rules.visibility``): this module decodes the stored events, asks it, and writes
back just the fields it hid, so the rest of an event reads exactly as it was stored.

Hash-chain links are held back until the match is finished: a link covers the hidden cards,
so with the public parts of the event a client could test guesses of them (three cards
after a redeal are only 15,600 guesses). The whole chain is published once the match ends.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from shared.codec import data_of, decode
from shared.eventstore.port import StoredEvent
from shared.eventstore.schema import event_to_json
from shared.rules import Event, Seat
from shared.rules.visibility import shown_events, table_of

Audience = str | None  # "A", "B", or None for a spectator


def public_events(
    shown: Sequence[StoredEvent], audience: Audience, known: Sequence[StoredEvent] | None = None,
    finished: bool = False, decoded: Sequence[Event] | None = None,
) -> list[dict[str, Any]]:
    """``shown`` rendered for ``audience`` (JSON-ready): redacted, and without chain links
    until the match is finished. ``known``: ``shown`` and the events after it up to now, or
    at least to the end of the rounds ``shown`` deals (default: ``shown``), which tell which
    cards the table has shown; ``finished``: the match is over, if ``known`` stops before;
    ``decoded``: the engine events ``known`` records, when the caller holds them (an action's
    own), so they are not decoded again."""
    known = shown if known is None else known
    events = [decode(stored) for stored in known] if decoded is None else list(decoded)
    seen = shown_events(events, None if audience is None else Seat(audience), finished)
    finished = finished or table_of(events).finished
    offset = shown[0].version - known[0].version if shown else 0
    rendered = []
    for stored, event, visible in zip(shown, events[offset:], seen[offset:]):
        body = {**event_to_json(stored), "data": _data(stored, event, visible)}
        if not finished:
            body["hash"] = None
        rendered.append(body)
    return rendered


def _data(stored: StoredEvent, event: Event, visible: Event) -> dict[str, Any]:
    """The stored data with the fields the engine hid (hidden cards written null) replaced."""
    if visible is event or visible == event:  # the engine hands back the event itself when it hides nothing
        return stored.data
    written = data_of(visible)
    hidden = [f.name for f in fields(event) if getattr(event, f.name) != getattr(visible, f.name)]
    return {**stored.data, **{name: written[name] for name in hidden}}
