"""The player directory: each player id's name as served, the one place a name is kept.

Events seat players by id (schema 2 of ``match_created`` and ``player_joined``), so every
view, lobby line, scoreboard row and replay names its players from here as it is written
or served: a rename shows wherever the player is shown, and an erasure leaves no name to
find in any event. The directory is the registered player's hash (``shared.keys.player``);
an erased player's name there is its placeholder (``shared.erasure``).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from shared import keys

_NAME = "name"  # the player hash's field


def names_in(client: Any, player_ids: Iterable[str]) -> dict[str, str]:
    """The names of ``player_ids`` that the directory holds, in one round trip (unknown ids: left out)."""
    ids = list(player_ids)
    reads = name_reads(ids)
    if not reads:
        return {}
    pipe = client.pipeline(transaction=False)
    for read in reads:
        pipe.execute_command(*read)
    return names_read(ids, pipe.execute(raise_on_error=False))


def name_reads(player_ids: Iterable[str]) -> tuple[tuple[str, ...], ...]:
    """The commands that read the names of ``player_ids``, for a caller's own round trip (each id once)."""
    return tuple(("HGET", keys.player(player_id), _NAME) for player_id in dict.fromkeys(player_ids))


def names_read(player_ids: Iterable[str], replies: Sequence[Any]) -> dict[str, str]:
    """The names that the replies of :func:`name_reads` ``(player_ids)`` give (unknown ids: left out)."""
    wanted = list(dict.fromkeys(player_ids))
    for reply in replies:
        if isinstance(reply, Exception):
            raise reply
    return {player_id: name.decode() for player_id, name in zip(wanted, replies) if name is not None}


def enter_unknown(client: Any, names: dict[str, str]) -> list[str]:
    """Give each id of ``names`` the directory does not know yet its name (an imported match's players
    registered elsewhere: a name only, no token, no claim on the name); the ids entered.

    A known id keeps the name it has here: an import never renames a player, nor brings back
    a name erased here (an erased player keeps its placeholder).
    """
    entered = []
    for player_id, name in names.items():
        if client.hsetnx(keys.player(player_id), _NAME, name):
            client.hset(keys.player(player_id), "id", player_id)
            entered.append(player_id)
    return entered
