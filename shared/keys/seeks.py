"""The matchmaking keys (services/api/seek_pool.py): open seeks, their pools, pairings, rematch offers.

Every seek key shares one hash tag (``{seeks}``), so the pairing pass, one Lua script, reads and
changes the pools, the seeks and the pairings at once, atomically, on a server or a cluster.
"""
from __future__ import annotations

from shared.keys.namespace import PREFIX, match_key

_TAG = f"{PREFIX}:{{seeks}}"
SEEKS = f"{_TAG}:open"  # a hash: seek id -> the seek (JSON)
SEEKERS = f"{_TAG}:by-player"  # a hash: player id -> their open seek's id
SEEK_POOLS = f"{_TAG}:pools"  # a set of the pools with open seeks
PAIRINGS = f"{_TAG}:pairings"  # a hash: match id -> the pair a pass made, until its match exists


def seek_pool(pool: str) -> str:
    """The open seeks of one pool (same rated-ness and rules): a sorted set of seek ids by rating."""
    return f"{_TAG}:pool:{pool}"


def rematch_offer(match_id: str) -> str:
    """A rematch offered after ``match_id`` (a string: the offering player's id, with an expiry)."""
    return match_key(match_id, "rematch")
