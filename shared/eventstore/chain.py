"""Each match's hash chain: every stored event carries a link over the one before it.

Anyone holding an export can recompute the links (``truc audit``): changing, dropping or
reordering any event breaks every link after it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence


def genesis_hash(match_id: str) -> str:
    """The "previous link" of a match's first event: binds the chain to its match."""
    return hashlib.sha256(f"truc-genesis\n{match_id}".encode()).hexdigest()


def chain_hash(previous: str, version: int, type_: str, schema_version: int, at: int, data: bytes) -> str:
    """The tamper-evident link of one event: SHA-256 over the previous link and its own content.

    ``sha256(previous || "\n" || f"{version}\n{type}\n{schema_version}\n{at}\n" || data)``,
    hex, where ``data`` is the event's JSON bytes as stored. Changing, dropping or
    reordering any event breaks every link after it.
    """
    head = f"{previous}\n{version}\n{type_}\n{schema_version}\n{at}\n".encode()
    return hashlib.sha256(head + data).hexdigest()


def link_hashes(previous: str, first_version: int, events: Sequence[tuple[str, int, bytes]], at: int) -> list[str]:
    """Chain links for (type, schema, data bytes) appended from ``first_version`` on at ``at``."""
    links = []
    for offset, (type_, schema, data) in enumerate(events):
        previous = chain_hash(previous, first_version + offset, type_, schema, at, data)
        links.append(previous)
    return links
