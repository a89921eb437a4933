"""What one audience may see of recorded events (the audit log and action responses).

Events carry every card (chance is recorded), so every event leaving the service is
redacted first: a card is shown only to the seat that holds it, or to everyone once it
has been played to the table in its round, or once the match is finished. The stock is
never shown before the end. Nor are hash-chain links: a link covers the hidden cards,
so with the public parts of the event a client could test guesses of them (three cards
after a redeal are only 15,600 guesses). The whole chain is published once the match ends.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from typing import Any

from shared.eventstore.port import StoredEvent
from shared.eventstore.schema import event_to_json

Audience = str | None  # "A", "B", or None for a spectator


class Redactor:
    """Redacts events for one audience, knowing which cards the table has shown so far."""

    def __init__(self, audience: Audience, finished: bool, shown: dict[int, set[str]]) -> None:
        self.audience = audience
        self.finished = finished
        self._shown = shown  # round number -> cards played to the table in that round

    @classmethod
    def over(cls, events: Iterable[tuple[str, dict[str, Any]]], audience: Audience) -> Redactor:
        """A redactor that knows everything ``events`` (type, data; oldest first) show."""
        shown: dict[int, set[str]] = defaultdict(set)
        finished = False
        for round_number, event_type, data in _in_rounds(events):
            if event_type == "card_played":
                shown[round_number].add(data["card"])
            elif event_type == "match_won":
                finished = True
        return cls(audience, finished, shown)

    def redact(self, event_type: str, data: dict[str, Any], round_number: int) -> dict[str, Any]:
        """``data`` as the audience may see it; ``round_number`` is the round it belongs to."""
        if self.finished:
            return data
        shown = self._shown.get(round_number, set())
        if event_type == "round_dealt":
            return {**data, "hands": self._hands(data["hands"], shown), "stock": _only(data["stock"], shown)}
        if event_type == "redeal_accepted":
            return {**data, "hands": self._hands(data["hands"], shown)}
        if event_type == "match_created":
            decks = [_only(deck, self._shown.get(number, set())) for number, deck in enumerate(data["decks"], 1)]
            return {**data, "decks": decks}
        return data

    def redact_all(self, events: Iterable[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
        """Redact a run of events in order (tracking which round each belongs to)."""
        return [self.redact(event_type, data, number) for number, event_type, data in _in_rounds(events)]

    def _hands(self, hands: dict[str, list[Any]], shown: set[str]) -> dict[str, list[Any]]:
        return {seat: cards if seat == self.audience else _only(cards, shown) for seat, cards in hands.items()}


def _in_rounds(events: Iterable[tuple[str, dict[str, Any]]]) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """Each (type, data) with the number of the round it belongs to (0 before the first deal)."""
    current = 0
    for event_type, data in events:
        if event_type == "round_dealt":
            current = data["round"]
        yield current, event_type, data


def _only(cards: list[Any], shown: set[str]) -> list[Any]:
    return [card if card in shown else None for card in cards]


def public_events(
    shown: Sequence[StoredEvent], audience: Audience, known: Sequence[StoredEvent] | None = None,
) -> list[dict[str, Any]]:
    """``shown`` rendered for ``audience`` (JSON-ready): redacted, and without chain links
    until the match is finished. ``known``: every event so far, oldest first (default:
    ``shown``), which tells which cards the table has shown and whether the match is over."""
    known = shown if known is None else known
    raw = [(e.type, e.data) for e in known]
    redactor = Redactor.over(raw, audience)
    offset = shown[0].version - known[0].version if shown else 0
    rendered = []
    # Only the shown events are redacted; the ones before still say which round is current.
    for event, (round_number, event_type, data) in zip(shown, islice(_in_rounds(raw), offset, None)):
        body = {**event_to_json(event), "data": redactor.redact(event_type, data, round_number)}
        if not redactor.finished:
            body["hash"] = None
        rendered.append(body)
    return rendered
