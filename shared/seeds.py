"""The secret seeds of provably fair matches, kept outside the event streams.

A match records only the seed's SHA-256 commitment when it is created and reveals the
seed in its ``match_won`` event; until then the seed lives here, readable by the
command service alone (it deals every round from it).
"""
from __future__ import annotations

import threading
from typing import Any, Protocol

from shared import keys


class Seeds(Protocol):
    def put(self, match_id: str, seed: str) -> None: ...

    def get(self, match_id: str) -> str | None: ...


class InMemorySeeds:
    """Seeds in a dict, for unit tests."""

    def __init__(self) -> None:
        self._seeds: dict[str, str] = {}
        self._lock = threading.Lock()

    def put(self, match_id: str, seed: str) -> None:
        with self._lock:
            self._seeds[match_id] = seed

    def get(self, match_id: str) -> str | None:
        with self._lock:
            return self._seeds.get(match_id)


class SeedVault:
    """Seeds in Redis, one key per match in the match's own slot."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def put(self, match_id: str, seed: str) -> None:
        self._client.execute_command(*seed_write(match_id, seed))

    def get(self, match_id: str) -> str | None:
        raw = self._client.get(keys.match_seed(match_id))
        return None if raw is None else raw.decode()


def seed_write(match_id: str, seed: str) -> tuple[str, str, str]:
    """The command that stores a match's seed in the vault: a new match's first append may carry it."""
    return ("SET", keys.match_seed(match_id), seed)
