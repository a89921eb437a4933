"""A rebuild's writes to the pointer: the lock, building, switching, abandoning, dropping a generation.

The pointer's layout and how reads resolve it: :mod:`shared.readmodels.generations`.
Switching is one MULTI on that one key: reads move from the old generation to the new one
in a single step, and never see a half-built one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import redis

from shared import keys
from shared.readmodels.cold_lists import cold_keys
from shared.readmodels.generations import Pointer, read_pointer
from shared.readmodels.retiring import CHILLED_STATUSES

_SCAN_COUNT = 1000


class RebuildLockError(RuntimeError):
    """Another rebuild holds the lock (or a crashed one left it), or it was taken from us."""


def _text(value: bytes | str | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


def lock_rebuild(client: Any, owner: str, *, force: bool = False) -> Pointer:
    """Take the rebuild lock for ``owner``; the pointer as it was.

    ``force`` takes it over from a rebuild that crashed, and stops live catch-ups from
    writing to the generation it was building (its leftovers are deleted next).
    """
    if client.hsetnx(keys.READ_MODELS, "rebuild", owner):
        return read_pointer(client)
    before = read_pointer(client)
    if not force:
        raise RebuildLockError(
            f"a rebuild is already running or crashed ({before.rebuild}, building generation "
            f"{before.building}); run again with --force if no rebuild is running"
        )
    pipe = client.pipeline(transaction=True)
    pipe.hset(keys.READ_MODELS, "rebuild", owner)
    pipe.hdel(keys.READ_MODELS, "building")
    pipe.execute()
    return before


def start_building(client: Any, generation: int, owner: str) -> None:
    """From now on live catch-ups also write to ``generation``."""
    _update_if_owner(client, owner, lambda pipe: pipe.hset(keys.READ_MODELS, "building", generation))


def switch_to(client: Any, generation: int, owner: str) -> None:
    """Make ``generation`` the one reads use and end the rebuild: one atomic step."""

    def switch(pipe: Any) -> None:
        pipe.hset(keys.READ_MODELS, "generation", keys.validate_generation(generation))
        pipe.hdel(keys.READ_MODELS, "building", "rebuild")
        pipe.publish(keys.VIEWS_CHANGED, "*")  # every wait looks again, at the new generation

    _update_if_owner(client, owner, switch)


def abandon(client: Any, owner: str) -> None:
    """End the rebuild without switching: reads stay where they are."""
    _update_if_owner(client, owner, lambda pipe: pipe.hdel(keys.READ_MODELS, "building", "rebuild"))


def _update_if_owner(client: Any, owner: str, update: Any) -> None:
    """Apply ``update`` to a MULTI on the pointer, only while ``owner`` holds the lock."""
    with client.pipeline(transaction=True) as pipe:
        while True:
            try:
                pipe.watch(keys.READ_MODELS)
                holder = _text(pipe.hget(keys.READ_MODELS, "rebuild"))
                if holder != owner:
                    raise RebuildLockError(f"the rebuild lock is held by {holder!r}, not {owner!r}")
                pipe.multi()
                update(pipe)
                pipe.execute()
                return
            except redis.WatchError:
                continue


def drop_generation(client: Any, generation: int) -> int:
    """Delete every key of ``generation``; the number of keys deleted.

    Refuses the generation reads use and the one being built. A player's results and
    totals are deleted together (one slot, one command), so a late writer can never leave
    one without the other.
    """
    pointer = read_pointer(client)
    if generation in (pointer.generation, pointer.building):
        raise ValueError(f"generation {generation} is in use ({pointer})")
    doomed: list[tuple[str | bytes, ...]] = [(key,) for key in _scan(client, keys.match_views_pattern(generation))]
    players = {keys.player_id_from_key(key) for key in _scan(client, keys.player_totals_pattern(generation))}
    players |= {keys.player_id_from_key(key) for key in _scan(client, keys.player_results_pattern(generation))}
    doomed += [(keys.player_results(p, generation), keys.player_totals(p, generation)) for p in players]
    doomed += [(key,) for status in keys.LOBBY_STATUSES
               for key in _scan(client, keys.player_matches_pattern(status, generation))]
    doomed += [(key,) for status in CHILLED_STATUSES  # archived matches' places: the lists' cold records
               for key in [*reversed(cold_keys(client, keys.lobby(status, generation))),  # its index last
                           *_scan(client, keys.player_matches_pattern(status, generation) + ":cold*")]]
    doomed += [(key,) for key in _scan(client, keys.player_ratings_pattern(generation))]
    doomed += [(key,) for key in _scan(client, keys.player_ratings_fence_pattern(generation))]
    doomed += [(key,) for key in _scan(client, keys.player_ratings_cold_pattern(generation))]
    doomed += [(key,) for key in [*keys.generation_global_keys(generation), *keys.ratings_global_keys(generation)]]
    deleted = 0
    for start in range(0, len(doomed), _SCAN_COUNT):
        pipe = client.pipeline(transaction=False)
        for group in doomed[start:start + _SCAN_COUNT]:
            pipe.unlink(*group)
        deleted += sum(pipe.execute())
    return deleted


def _scan(client: Any, pattern: str) -> Iterator[bytes | str]:
    return client.scan_iter(match=pattern, count=_SCAN_COUNT)
