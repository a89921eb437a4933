"""The keys the command side writes for one match: its event stream, what its appends remember, its seed.

All in the match's slot, so the append script touches them in one step on a cluster too.
"""
from __future__ import annotations

from shared.keys.namespace import PREFIX, match_key


def match_events(match_id: str) -> str:
    """The match's event stream: entry ``n-0`` is the event of version ``n``."""
    return match_key(match_id, "events")


def match_tokens(match_id: str) -> str:
    """The match's append tokens (a hash: token key -> "first last fingerprint")."""
    return match_key(match_id, "tokens")


def match_refusals(match_id: str) -> str:
    """The match's remembered refused requests (a hash like the tokens', capped, expiring)."""
    return match_key(match_id, "refusals")


def match_seed(match_id: str) -> str:
    """The secret seed behind the match's shuffled deals (outside the stream until revealed)."""
    return match_key(match_id, "seed")


def match_rechained(match_id: str) -> str:
    """The match's re-chainings (a list, oldest first): each the chain head before and after a rewrite
    of its stream that took an erased player's name out of schema-1 events (:mod:`shared.rechaining`)."""
    return match_key(match_id, "rechained")


def match_rewriting(match_id: str) -> str:
    """Where a re-chained stream is written whole before it is renamed over the match's stream."""
    return match_key(match_id, "rewriting")


MATCH_EVENTS_PATTERN = f"{PREFIX}:{{m:*}}:events"
MATCHES_APPENDED = f"{PREFIX}:appended"  # a pub/sub channel: the match id of every append
