"""The player directory: each player id's name as served, the one place a name is kept.

Events seat players by id (schema 2 of ``match_created`` and ``player_joined``), so every
view, lobby line, scoreboard row and replay names its players from here as it is written
or served: a rename shows wherever the player is shown, and an erasure leaves no name to
find in any event. The directory is the registered player's hash (``shared.keys.player``);
an erased player's name there is its placeholder (``shared.erasure``).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from shared import keys

_NAME = "name"  # the player hash's field


def names_in(client: Any, player_ids: Iterable[str]) -> dict[str, str]:
    """The names of ``player_ids`` that the directory holds, in one round trip (unknown ids: left out)."""
    wanted = list(dict.fromkeys(player_ids))
    if not wanted:
        return {}
    pipe = client.pipeline(transaction=False)
    for player_id in wanted:
        pipe.hget(keys.player(player_id), _NAME)
    return {player_id: name.decode() for player_id, name in zip(wanted, pipe.execute()) if name is not None}
