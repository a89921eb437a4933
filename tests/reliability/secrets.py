"""What each audience may not see of a match, at any version, told by the match's own stream.

A card is secret from an audience in a round while it lies in another seat's hand (any
deal of that round, redeals included) or in the stock, and has not been played to the
table in that round. The audience's own hand is never secret from it. Once the match is
won, nothing is. Rounds matter: the same card is dealt again in later rounds, so a card
is judged by the round of the document (view or event) it appears in.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from shared.eventstore.port import StoredEvent

Audience = str | None  # "A", "B" or None (a spectator, or a player not seated)
_CARD = re.compile(rb'"((?:[789]|10|[JQKA])[CDHS])"')


@dataclass
class _Round:
    dealt: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # seat -> every card dealt
    hand: dict[str, set[str]] = field(default_factory=dict)  # seat -> the latest deal's hand
    stock: set[str] = field(default_factory=set)
    played: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Leak:
    """A secret card (or a chain link, which would let guesses of one be tested) where its audience reads it."""

    where: str
    audience: Audience
    version: int
    card: str


def cards_in(document: Any) -> set[str]:
    """Every card name quoted anywhere in a JSON-ready document."""
    return {match.decode() for match in _CARD.findall(orjson.dumps(document))}


class Secrets:
    """The secrets of one match, from its stored events (the truth the API must keep)."""

    def __init__(self, stored: Iterable[StoredEvent]) -> None:
        self.events = list(stored)

    def at(self, version: int) -> tuple[dict[int, _Round], int, bool]:
        """(rounds as of ``version``, the round then current, whether the match was won by then)."""
        rounds: dict[int, _Round] = defaultdict(_Round)
        current, won = 0, False
        for event in self.events[:version]:
            data = event.data
            if event.type in ("round_dealt", "redeal_accepted"):
                current = data.get("round", current)
                for seat, cards in data["hands"].items():
                    rounds[current].dealt[seat] |= set(cards)
                    rounds[current].hand[seat] = set(cards)
                rounds[current].stock |= set(data.get("stock", ()))
            elif event.type == "card_played":
                rounds[current].played.add(data["card"])
            elif event.type == "match_won":
                won = True
        return rounds, current, won

    def hidden(self, audience: Audience, version: int, round_number: int | None = None) -> set[str]:
        """The cards secret from ``audience`` in a round (default: the current one) as of ``version``."""
        rounds, current, won = self.at(version)
        if won:
            return set()
        rnd = rounds[current if round_number is None else round_number]
        others = set().union(*(cards for seat, cards in rnd.dealt.items() if seat != audience))
        return (others | rnd.stock) - rnd.played - rnd.hand.get(audience or "", set())

    @property
    def won(self) -> bool:
        """Whether the match is won by its latest event (then everything may be shown)."""
        return self.at(len(self.events))[2]

    def round_of(self, version: int) -> int:
        """The round an event of ``version`` belongs to (a deal opens its own round)."""
        return self.at(version)[1]

    def view_leaks(self, where: str, audience: Audience, view: dict[str, Any]) -> list[Leak]:
        """Secret cards in a match view (or a replay), judged as of the view's own version."""
        version = view["version"]
        shown = {key: value for key, value in view.items() if key != "last_round"}
        found = cards_in(shown) & self.hidden(audience, version)
        if view.get("last_round"):
            found |= cards_in(view["last_round"]) & self.hidden(audience, version, view["last_round"]["number"])
        return [Leak(where, audience, version, card) for card in sorted(found)]

    def event_leaks(self, where: str, audience: Audience, events: list[dict[str, Any]], as_of: int) -> list[Leak]:
        """Secret cards in events sent at ``as_of``: each judged in the round it belongs to."""
        leaks, won = [], self.at(as_of)[2]
        for event in events:
            number, place = self.round_of(event["version"]), f"{where} v{event['version']} {event['type']}"
            for card in sorted(cards_in(event["data"]) & self.hidden(audience, as_of, number)):
                leaks.append(Leak(place, audience, as_of, card))
            if event.get("hash") and not won:  # a link would let a client test guesses of hidden cards
                leaks.append(Leak(place, audience, as_of, "chain link"))
        return leaks

    def text_leaks(self, where: str, document: Any, version: int) -> list[Leak]:
        """Cards secret from a spectator anywhere in a document that shows no cards (lobby, scores)."""
        return [Leak(where, None, version, card) for card in sorted(cards_in(document) & self.hidden(None, version))]
