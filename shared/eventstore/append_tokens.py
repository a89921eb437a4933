"""Idempotent appends: a token per request, and what the first request with it got.

A client retrying a request (the same Idempotency-Key) must get the first answer again,
not a second append. The append records its token atomically with its events; a refused
request can claim its token too, so that its retry is refused the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable


@dataclass(frozen=True, slots=True)
class AppendToken:
    """Makes an append idempotent: a second append with the same ``key`` records nothing.

    ``key`` is unique within the match (e.g. a hash of the client and its Idempotency-Key);
    ``fingerprint`` identifies the request, so a caller can tell a retry from a reuse.
    """

    key: str
    fingerprint: str


@dataclass(frozen=True, slots=True)
class TokenRecord:
    """What the first request with a token got: the versions it appended, or its refusal.

    A refusal (``refusal`` set, versions 0) is remembered too, so that a retry of a refused
    request is refused the same way instead of acting on a state that moved on.
    """

    fingerprint: str
    first_version: int
    last_version: int
    refusal: str | None = None  # the refusal answered, as the caller serialised it

    def encode(self) -> str:
        text = f"{self.first_version} {self.last_version} {self.fingerprint}"
        return text if self.refusal is None else f"{text} {self.refusal}"

    @classmethod
    def decode(cls, raw: bytes | str) -> TokenRecord:
        text = raw.decode() if isinstance(raw, bytes) else raw
        first, last, fingerprint, *refusal = text.split(" ", 3)
        return cls(fingerprint, int(first), int(last), refusal[0] if refusal else None)


REFUSALS_KEPT = 256  # remembered refused requests per match
REFUSALS_KEPT_SECONDS = 24 * 3600  # ... for a day after the last one: retries come within seconds


@runtime_checkable
class AppendTokens(Protocol):
    """The tokens an event store keeps per match (``append`` records them with its events)."""

    def token(self, match_id: str, key: str) -> TokenRecord | None:
        """What the append with token ``key`` recorded in this match, if any."""
        ...

    def remember_refusal(self, match_id: str, token: AppendToken, refusal: str) -> TokenRecord | None:
        """Claim ``token`` for a refused request; the record that was there first, if any.

        Refusals are bounded, unlike appends (which are part of the match): a match keeps at
        most ``REFUSALS_KEPT`` of them, and a store with expiry forgets them
        ``REFUSALS_KEPT_SECONDS`` after the last one. A refusal past the cap is not kept:
        its retry is decided afresh.
        """
        ...
