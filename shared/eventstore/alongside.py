"""Commands of the caller's sent in an append's round trip: writes before it, reads after it.

A new match's secret seed must be stored before the match exists, the view answered after
a create or a join names its players (:mod:`shared.directory`), and an append that asks for
a catch-up files the match in its lane (:mod:`shared.catch_up_lanes`): each cost a round trip
of its own beside the append's. On one server, ``before`` writes and the append go in one
transaction (MULTI/EXEC: all of them or none, so no match is left without its seed), and
the ``after`` commands follow in the same round trip (:meth:`~shared.eventstore.lua.Script.pipelined`).
On a Redis Cluster their keys live on other nodes, and an append that waits for a replica
waits alone: each part goes in turn (the writes first, they share the match's slot).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

Command = tuple[Any, ...]


@dataclass(frozen=True)
class Alongside:
    """Writes to send before an append (keys in the match's slot), and commands to send after it
    (their replies, errors among them, are the caller's to read)."""

    before: tuple[Command, ...] = ()
    after: tuple[Command, ...] = ()


def send(client: Any, commands: Sequence[Command]) -> tuple[Any, ...]:
    """``commands`` in one pipeline (none: no round trip); their replies, errors as exceptions."""
    if not commands:
        return ()
    pipe = client.pipeline(transaction=False)
    for command in commands:
        pipe.execute_command(*command)
    return tuple(pipe.execute(raise_on_error=False))


def write(client: Any, commands: Sequence[Command]) -> None:
    """``commands`` in one pipeline; the first error among their replies raised."""
    _raise_any(send(client, commands))


def _raise_any(replies: Sequence[Any]) -> None:
    for reply in replies:
        if isinstance(reply, Exception):
            raise reply
