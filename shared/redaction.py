"""What one seat may see of a recorded event: never the other seat's unplayed cards, never the stock.

Events carry every card (chance is recorded), so every event leaving the service goes
through ``redact`` first. Once a match is finished everything may be shown.
"""
from __future__ import annotations

from typing import Any

Audience = str | None  # "A", "B", or None for a spectator


def _hidden(cards: list[Any]) -> list[None]:
    return [None] * len(cards)


def _hands(hands: dict[str, list[Any]], audience: Audience) -> dict[str, list[Any]]:
    return {seat: cards if seat == audience else _hidden(cards) for seat, cards in hands.items()}


def redact(event_type: str, data: dict[str, Any], audience: Audience, finished: bool = False) -> dict[str, Any]:
    """The event data as ``audience`` may see it (a new dict; ``data`` is not changed)."""
    if finished:
        return data
    if event_type == "round_dealt":
        return {**data, "hands": _hands(data["hands"], audience), "stock": _hidden(data["stock"])}
    if event_type == "redeal_accepted":
        return {**data, "hands": _hands(data["hands"], audience)}
    if event_type == "match_created":
        return {**data, "decks": [_hidden(deck) for deck in data["decks"]]}
    return data
