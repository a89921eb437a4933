"""Redis Cluster slots: a short hash tag that lands in each one.

A key meant to share a slot with a match's keys (so one script may touch both) cannot
carry the match's own tag when it serves many matches; it carries a tag found here
instead, one per slot.
"""
from __future__ import annotations

from functools import cache

from redis.crc import key_slot

SLOTS = 16384


def slot_tag(slot: int) -> str:
    """A hash tag (``s<n>``) whose keys live in ``slot``."""
    return _slot_tags()[slot]


@cache
def _slot_tags() -> list[str]:
    """The first ``s<n>`` of each slot (found once per process, ~0.1 s; only on a cluster)."""
    tags: dict[int, str] = {}
    n = 0
    while len(tags) < SLOTS:
        tags.setdefault(key_slot(f"s{n}".encode()), f"s{n}")
        n += 1
    return [tags[slot] for slot in range(SLOTS)]
