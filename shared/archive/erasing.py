"""A player's new name (a rename, or an erasure's placeholder) written into the archived records that name them.

An archived record's header names its players as they were served when it left Redis
(a whole Redis restored from the archive names them again), so an erased player's name
would outlive the erasure there. Each archived match of the player's lists gets its record
rewritten whole (the archive's put replaces a record atomically), its events untouched:
its chain head, and so its index entry and its audit, stay as they were.
"""
from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from shared.archive.index import ArchiveIndex
from shared.archive.port import Archive

log = logging.getLogger(__name__)


def rename_in_archive(client: Any, archive: Archive, match_ids: list[str], player_id: str, name: str) -> int:
    """Rename ``player_id`` to ``name`` in the header of each archived match of ``match_ids``; how many rewritten."""
    index = ArchiveIndex(client)
    rewritten = 0
    for match_id in match_ids:
        if index.get(match_id) is None:
            continue  # not archived: its views are the read models'
        match = archive.get(match_id)
        if match is None or match.players.get(player_id, name) == name:
            continue
        archive.put(replace(match, players={**match.players, player_id: name}))
        rewritten += 1
    log.info("player %s renamed in %d archived records", player_id, rewritten)
    return rewritten
