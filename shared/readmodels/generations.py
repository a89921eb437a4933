"""Which read-model generation reads use, which one a rebuild is building, and dropping one.

``truc:readmodels`` (``keys.READ_MODELS``) is one small hash:

- ``generation`` - the generation every read uses. Absent means 0 (the plain key names),
  so a Redis that was never rebuilt needs no setup.
- ``building`` - the generation a rebuild is filling; absent when no rebuild runs. Live
  catch-ups write to it as well as to ``generation``, so it is current when reads switch.
- ``rebuild`` - who holds the rebuild (``<host>:<pid> <iso time>``). Taken before any key
  of the new generation is touched, so two rebuilds can never interleave; a crashed
  rebuild leaves it set, and the next one refuses to start unless forced.

Switching is one MULTI on this one key: reads move from the old generation to the new one
in a single step, and never see a half-built one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import redis

from shared import keys

_SCAN_COUNT = 1000


@dataclass(frozen=True)
class Pointer:
    """The state of ``truc:readmodels``."""

    generation: int = 0
    building: int | None = None
    rebuild: str | None = None  # the holder of the rebuild lock


class RebuildLockError(RuntimeError):
    """Another rebuild holds the lock (or a crashed one left it), or it was taken from us."""


def _text(value: bytes | str | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


def _int(value: bytes | str | None) -> int | None:
    return None if value is None else int(value)


def read_pointer(client: Any) -> Pointer:
    """The whole pointer, in one HMGET."""
    return pointer_from(queue_pointer_read(client))


def queue_pointer_read(client: Any) -> Any:
    """Send the pointer's HMGET on ``client`` or queue it on a pipeline; read its reply with ``pointer_from``."""
    return client.hmget(keys.READ_MODELS, "generation", "building", "rebuild")


def pointer_from(reply: list[bytes | str | None]) -> Pointer:
    """The pointer from the reply of ``queue_pointer_read``."""
    generation, building, rebuild = reply
    return Pointer(_int(generation) or 0, _int(building), _text(rebuild))


def current_generation(client: Any) -> int:
    """The generation reads use, in one HGET."""
    return _int(client.hget(keys.READ_MODELS, "generation")) or 0


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
    doomed += [(key,) for key in keys.generation_global_keys(generation)]  # apart: other slots
    deleted = 0
    for start in range(0, len(doomed), _SCAN_COUNT):
        pipe = client.pipeline(transaction=False)
        for group in doomed[start:start + _SCAN_COUNT]:
            pipe.unlink(*group)
        deleted += sum(pipe.execute())
    return deleted


def _scan(client: Any, pattern: str) -> Iterator[bytes | str]:
    return client.scan_iter(match=pattern, count=_SCAN_COUNT)
