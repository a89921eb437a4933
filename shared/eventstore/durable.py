"""Appends a replica confirms (``APPEND_ACK=replica``): the script, then ``WAIT`` on its connection.

``WAIT n ms`` counts the replicas that acknowledged every write *of the connection it runs
on*, so it must follow the script on the very connection, on the master that ran it: both
go down one pipeline of that node's client (on a Redis Cluster, the master owning the
match's slot). redis-py's cluster client would route a keyless WAIT to any node, so the
store talks to the node itself here and refreshes the cluster's map when the node refuses
(MOVED, a failover in progress) or is gone.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from redis.exceptions import (
    AskError,
    ClusterDownError,
    ConnectionError,
    MovedError,
    TimeoutError,
    TryAgainError,
)

from shared.connect import learn_slots_again, node_client
from shared.eventstore.lua import Script

REDIRECTS = 5  # a refused script wrote nothing: ask the cluster's new map and try again this often
_NOT_HERE = (MovedError, AskError, TryAgainError, ClusterDownError)


@dataclass(frozen=True)
class Acknowledgement:
    """How many replicas must hold an append before it is answered, and how long to wait for them."""

    replicas: int = 0  # 0: the master's own acknowledgement (no WAIT)
    timeout_ms: int = 500

    @classmethod
    def of(cls, setting: str, timeout_ms: int) -> Acknowledgement:
        """The acknowledgement ``APPEND_ACK`` (``master`` or ``replica``) and ``APPEND_ACK_TIMEOUT_MS`` ask for."""
        return cls(1 if setting == "replica" else 0, timeout_ms)

    @property
    def waits(self) -> bool:
        return self.replicas > 0


def run_and_wait(client: Any, script: Script, script_keys: Sequence[str], args: Sequence[Any],
                 ack: Acknowledgement) -> tuple[Any, int]:
    """Run ``script`` on the master of ``script_keys``, then WAIT: its answer and the replicas that have it."""
    for attempt in range(REDIRECTS):
        node = node_client(client, script_keys[0])
        try:
            return _pipelined(node, script, script_keys, args, ack)
        except _NOT_HERE:  # nothing was written: the slot is elsewhere, or not served yet
            if attempt == REDIRECTS - 1:
                raise
            learn_slots_again(client)
            time.sleep(0.05 * (attempt + 1))
        except (ConnectionError, TimeoutError):  # it may have run: the caller decides, not a blind retry
            learn_slots_again(client)
            raise
    raise AssertionError("unreachable")


def _pipelined(node: Any, script: Script, script_keys: Sequence[str], args: Sequence[Any],
               ack: Acknowledgement) -> tuple[Any, int]:
    """The script and its WAIT on one connection of the node."""
    result, (acked,) = script.pipelined(node, script_keys, args, after=(("WAIT", ack.replicas, ack.timeout_ms),))
    if isinstance(acked, Exception):
        raise acked
    return result, int(acked)
