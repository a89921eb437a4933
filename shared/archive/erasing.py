"""A player's new name (a rename, or an erasure's placeholder) written into the archived records that name them.

An archived record's header names its players as they were served when it left Redis
(a whole Redis restored from the archive names them again), so an erased player's name
would outlive the erasure there. Each archived match of the player's lists gets its record
rewritten whole (the archive's put replaces a record atomically), its events untouched:
its chain head, and so its index entry and its audit, stay as they were. A record whose
schema-1 events name an erased player is re-chained without the name instead
(:func:`rechain_in_archive`, :mod:`shared.rechaining`).
"""
from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from shared import keys
from shared.archive.index import ArchiveIndex, IndexEntry
from shared.archive.port import Archive
from shared.rechaining import ERASURE, Rechaining, names_out

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


def rechain_in_archive(client: Any, archive: Archive, match_ids: list[str], player_id: str, now_ms: int) -> int:
    """Take ``player_id``'s name out of the schema-1 events of each archived match of ``match_ids``
    (:func:`shared.rechaining.names_out`): the record put whole with its new chain, then its index
    entry's head and the match's re-chaining record in one transaction; how many were rewritten.

    Safe to repeat after a crash between the two: a record already re-chained whose index entry
    still holds the old head gets the entry (and the record of it) then."""
    index = ArchiveIndex(client)
    rewritten = 0
    for match_id in match_ids:
        entry = index.get(match_id)
        match = None if entry is None else archive.get(match_id)
        if entry is None or match is None:
            continue
        events = names_out(match_id, match.events, {player_id})
        if events is not None:
            match = replace(match, events=tuple(events))
            archive.put(match)
        elif match.head == entry.head:
            continue  # names none of them, or re-chained and indexed already
        done = Rechaining(entry.head, match.head, match.count, now_ms, ERASURE)
        pipe = client.pipeline(transaction=True)  # both in the match's slot
        pipe.set(keys.match_archived(match_id), IndexEntry(match.count, entry.finished_at, match.head).encode())
        pipe.rpush(keys.match_rechained(match_id), done.encode())
        pipe.execute()
        rewritten += 1
    log.info("player %s: %d archived records re-chained without their name", player_id, rewritten)
    return rewritten
