"""Cards, the 32-card deck and the rank order (R2, R3).

A card is kept as its canonical text, rank then suit (``"7H"``, ``"10S"``): it is
hashable, JSON-ready and reads the same in events, views and logs.
"""
from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from .rule_errors import N_, TemplatedError

#: Ranks from low to high (R3): 9 < 10 < J < Q < K < A < 8 < 7.
RANKS: tuple[str, ...] = ("9", "10", "J", "Q", "K", "A", "8", "7")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
DECK: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
_STRENGTH = {card: RANKS.index(card[:-1]) for card in DECK}


class InvalidCardError(TemplatedError):
    """Raised for text that is not one of the 32 cards."""


class InvalidDeckError(TemplatedError):
    """Raised for a deck order that is not exactly the 32 cards."""


def parse_card(text: str) -> str:
    """Return ``text`` as a card, or raise InvalidCardError saying what a card looks like."""
    if isinstance(text, str) and text in _STRENGTH:
        return text
    raise InvalidCardError(
        N_("{card} is not a card: write rank then suit, ranks 7 8 9 10 J Q K A, suits S H D C (e.g. '7H', '10S')"),
        card=repr(text),
    )


def strength(card: str) -> int:
    """Position of the card's rank in R3's order (higher beats lower)."""
    return _STRENGTH[card]


def parse_deck(cards: Iterable[str]) -> tuple[str, ...]:
    """Validate a deck order given top-first: each of the 32 cards exactly once."""
    deck = tuple(cards)
    try:
        plain = _STRENGTH.keys() >= set(deck)
    except TypeError:  # an unhashable item: not a card
        plain = False
    if not plain:  # the usual deck passes the one check above; this loop names the first wrong card
        deck = tuple(parse_card(card) for card in deck)
    if len(deck) != len(DECK) or len(set(deck)) != len(DECK):
        raise InvalidDeckError(N_("a deck must hold each of the {count} cards exactly once"), count=len(DECK))
    return deck


def shuffled_deck(rng: random.Random) -> tuple[str, ...]:
    """A deck order drawn from ``rng`` (chance is an input, never hidden inside the engine).

    The deck ``rng.shuffle`` gives, drawn as it draws: position i from 31 down to 1 swaps
    with ``randbelow(i + 1)``, a draw of that bound's bit length retried until below it. The
    same draws without ``shuffle``'s method call a card: a deal starts every round of every
    playout. An ``rng`` that draws its own way is left to its own ``shuffle``.
    """
    cards = list(DECK)
    if not _draws_as_random(rng):
        rng.shuffle(cards)
        return tuple(cards)
    draw = rng.getrandbits
    for i, bound, bits in _SWAPS:
        j = draw(bits)
        while j >= bound:
            j = draw(bits)
        cards[i], cards[j] = cards[j], cards[i]
    return tuple(cards)


_SWAPS = tuple((i, i + 1, (i + 1).bit_length()) for i in range(len(DECK) - 1, 0, -1))


def _draws_as_random(rng: object) -> bool:
    """Does ``rng`` shuffle with ``random.Random``'s own ``shuffle`` and ``getrandbits`` draws?"""
    return (getattr(type(rng), "shuffle", None) is random.Random.shuffle
            and getattr(rng._randbelow, "__func__", None) is random.Random._randbelow_with_getrandbits)


def split_deal(cards: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """Deal three cards each, one at a time, non-dealer first (R6, and R8 from the stock).

    Returns (non-dealer's hand, dealer's hand, the cards left).
    """
    return tuple(cards[0:6:2]), tuple(cards[1:6:2]), tuple(cards[6:])
