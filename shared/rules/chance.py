"""Chance is an input: where deck orders and a drawn first dealer come from.

``RandomChance`` draws from a ``random.Random`` (tests, simulations). ``SeededChance``
derives everything from a secret seed, so a match's deals are provably fair: the match
records only ``commitment`` (SHA-256 of the seed) when it is created and reveals the
seed when it is won, and anyone holding the event log can then recompute every deal.

The seeded shuffle (documented here so it can be reimplemented anywhere):

- the seed is 32 random bytes, written as 64 lowercase hex digits; the commitment is
  ``sha256(seed_bytes).hexdigest()``;
- the randomness of round ``n`` is the byte stream ``sha256(seed_bytes || b"truc-deal" ||
  n.to_bytes(4, "big") || k.to_bytes(4, "big"))`` for k = 0, 1, 2, ... concatenated, read
  as unsigned 64-bit big-endian integers;
- start from ``DECK`` (suits S H D C, each 9 10 J Q K A 8 7) and, for i = 31 down to 1,
  draw x until ``x < 2**64 - 2**64 % (i + 1)`` (no modulo bias), let j = x % (i + 1) and
  swap positions i and j (Fisher-Yates); the result is the deck top-first (R6);
- a drawn first dealer is A if the first byte of ``sha256(seed_bytes || b"truc-first-dealer")``
  is even, else B.
"""
from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from .cards import DECK, shuffled_deck
from .state import Seat

_SPAN = 2**64


class Chance(Protocol):
    def deck(self, round_number: int) -> tuple[str, ...]:
        """The deck order of round ``round_number`` (top-first)."""
        ...

    def first_dealer(self) -> Seat:
        """A drawn first dealer, for matches created without one."""
        ...

    @property
    def commitment(self) -> str | None:
        """What the match records up front to prove its deals later (None: nothing)."""
        ...

    def reveal(self) -> str | None:
        """What the match reveals when it is won (None: nothing)."""
        ...


@dataclass(frozen=True)
class RandomChance:
    rng: random.Random

    def deck(self, round_number: int) -> tuple[str, ...]:
        return shuffled_deck(self.rng)

    def first_dealer(self) -> Seat:
        return self.rng.choice((Seat.A, Seat.B))

    @property
    def commitment(self) -> str | None:
        return None

    def reveal(self) -> str | None:
        return None


@dataclass(frozen=True)
class SeededChance:
    seed: str  # 64 hex digits

    @classmethod
    def new(cls) -> SeededChance:
        return cls(secrets.token_hex(32))

    def deck(self, round_number: int) -> tuple[str, ...]:
        return seeded_deck(self.seed, round_number)

    def first_dealer(self) -> Seat:
        digest = hashlib.sha256(bytes.fromhex(self.seed) + b"truc-first-dealer").digest()
        return Seat.A if digest[0] % 2 == 0 else Seat.B

    @property
    def commitment(self) -> str:
        return commitment_of(self.seed)

    def reveal(self) -> str:
        return self.seed


def commitment_of(seed: str) -> str:
    """The SHA-256 commitment a match records for ``seed``."""
    return hashlib.sha256(bytes.fromhex(seed)).hexdigest()


def fits_commitment(seed: object, commitment: object) -> bool:
    """Is ``seed`` a well-formed seed (64 lowercase hex digits) whose commitment is ``commitment``?"""
    return (isinstance(seed, str) and len(seed) == 64 and all(c in "0123456789abcdef" for c in seed)
            and commitment_of(seed) == commitment)


def _draws(seed: str, round_number: int) -> Iterator[int]:
    prefix = bytes.fromhex(seed) + b"truc-deal" + round_number.to_bytes(4, "big")
    block = 0
    while True:
        digest = hashlib.sha256(prefix + block.to_bytes(4, "big")).digest()
        for offset in range(0, 32, 8):
            yield int.from_bytes(digest[offset:offset + 8], "big")
        block += 1


def seeded_deck(seed: str, round_number: int) -> tuple[str, ...]:
    """The deck order of round ``round_number`` derived from ``seed`` (see the module doc)."""
    cards = list(DECK)
    draws = _draws(seed, round_number)
    for i in range(len(cards) - 1, 0, -1):
        bound = i + 1
        limit = _SPAN - _SPAN % bound
        x = next(draws)
        while x >= limit:
            x = next(draws)
        j = x % bound
        cards[i], cards[j] = cards[j], cards[i]
    return tuple(cards)


def as_chance(source: Chance | random.Random | None) -> Chance | None:
    """Accept a plain ``random.Random`` wherever a Chance is expected."""
    return RandomChance(source) if isinstance(source, random.Random) else source
