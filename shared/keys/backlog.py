"""The projector's backlog: which matches have events their views do not show yet, and who folds them.

The append sets a match's "unprojected" mark (and lists it in an index, countable without a scan)
and may ask for a catch-up; the catch-up lanes (on the queue's Redis, beside RQ's keys; see
shared/catch_up_lanes.py) hold the matches waiting for a drain job.
"""
from __future__ import annotations

from redis.crc import key_slot

from shared.cluster_slots import SLOTS, slot_tag
from shared.keys.namespace import PREFIX, match_key, validate_match_id


def match_unprojected(match_id: str) -> str:
    """The match's "has unprojected events" mark (value: the latest appended version)."""
    return match_key(match_id, "unprojected")


def match_catch_up(match_id: str) -> str:
    """Set by the append that asks a catch-up, cleared by any read of the stream: appends meanwhile ask none."""
    return match_key(match_id, "catchup")


# The marked matches, countable without a scan: one set, or one per slot (tagged) on a cluster.
UNPROJECTED_INDEX = f"{PREFIX}:unprojected"
MATCH_UNPROJECTED_PATTERN = f"{PREFIX}:{{m:*}}:unprojected"


def unprojected_index(match_id: str, per_slot: bool) -> str:
    """The set that lists ``match_id`` while it carries its mark (``per_slot``: on a cluster)."""
    validate_match_id(match_id)
    if not per_slot:
        return UNPROJECTED_INDEX
    return f"{PREFIX}:{{{slot_tag(key_slot(f'm:{match_id}'.encode()))}}}:unprojected"  # CRC16: only on a cluster


def unprojected_indexes(per_slot: bool) -> list[str]:
    """Every set :func:`unprojected_index` may name."""
    return [f"{PREFIX}:{{{slot_tag(slot)}}}:unprojected" for slot in range(SLOTS)] if per_slot else [UNPROJECTED_INDEX]


def lane_pending(queue_name: str, lane: int) -> str:
    """The ids of matches waiting for the lane's drain job (a set)."""
    return f"{PREFIX}:{{lanes:{queue_name}}}:{int(lane)}:pending"


def lane_armed(queue_name: str, lane: int) -> str:
    """Set while the lane has a drain job queued or running, so appends queue no other."""
    return f"{PREFIX}:{{lanes:{queue_name}}}:{int(lane)}:armed"


def lane_wake(queue_name: str, lane: int) -> str:
    """A one-item list a request pushes while the lane is armed: wakes a drain waiting on it."""
    return f"{PREFIX}:{{lanes:{queue_name}}}:{int(lane)}:wake"
