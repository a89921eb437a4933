"""What a catch-up reads in the round trip of its events' last read (``ReadSide.fold_new``).

The generation pointer must be read after the events (a rebuild that starts later folds them
itself), and the players' names are read for the views the catch-up writes: both ride the
events' read instead of costing round trips of their own. Only the players seated before
the fold can be named there; a player seated by the events folded is read after them.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from shared.readmodels.generations import Pointer


@dataclass(frozen=True)
class ReadAlong:
    pointer: Pointer
    names: Mapping[str, str]  # the directory's names of ``asked`` (an id it does not hold: left out)
    asked: tuple[str, ...]  # the players whose names were read

    def names_of(self, player_ids: Sequence[str]) -> dict[str, str] | None:
        """The names of ``player_ids`` as read along; None if one of them was not asked (read them now)."""
        if not set(player_ids) <= set(self.asked):
            return None
        return {player_id: self.names[player_id] for player_id in player_ids if player_id in self.names}
