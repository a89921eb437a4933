"""Which read-model generation reads use and which one a rebuild is building (the pointer, as read).

Taking the rebuild lock, switching and dropping a generation are the projector's
(:mod:`services.projector.rebuild.lock_and_switch`).

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

from dataclasses import dataclass
from typing import Any

from shared import keys


@dataclass(frozen=True)
class Pointer:
    """The state of ``truc:readmodels``."""

    generation: int = 0
    building: int | None = None
    rebuild: str | None = None  # the holder of the rebuild lock


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
