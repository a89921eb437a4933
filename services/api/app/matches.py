"""What the use cases run on: the store, each match's chance, the projector's doorbell and a cache.

Wired once per process by the app factory (tests build their own on the in-memory store).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from shared.eventstore import AppendTokens, EventStore
from shared.fold import FoldCache
from shared.rules.chance import Chance, SeededChance
from shared.seeds import Seeds

from .application_errors import SeedUnavailableError

# A catch-up request riding an append's round trip (``shared.catch_up_lanes``): the command to
# send after the append, and whether its reply says it filed the match.
RidingRequest = tuple[tuple[Any, ...], Callable[[Any], bool]]

CACHE_SIZE = 4096  # matches whose latest fold a process keeps: a command reads only what is new
_CHANCES_KEPT = 16_384


class CommandStore(EventStore, AppendTokens, Protocol):
    """The streams and their Idempotency-Key tokens (both event stores keep both)."""


class Chances:
    """Each match's seeded chance: every deal of a match derives from its secret seed.

    Seeds never change, so this process reads each from the vault once.
    """

    def __init__(self, seeds: Seeds) -> None:
        self._seeds = seeds
        self._kept: dict[str, Chance] = {}

    def of(self, match_id: str) -> Chance:
        """The match's chance; SeedUnavailableError if this server does not hold its seed."""
        chance = self._kept.get(match_id)
        if chance is None:
            seed = self._seeds.get(match_id)
            if seed is None:  # e.g. imported without its seed: dealing at random would break the proof
                raise SeedUnavailableError(match_id)
            chance = self._keep(match_id, SeededChance(seed))
        return chance

    def keep(self, match_id: str, chance: SeededChance) -> None:
        """Keep a new match's chance here: the join and first moves need not read its seed back."""
        self._keep(match_id, chance)

    def store(self, match_id: str, seed: str) -> None:
        """Store a new match's seed on its own (without ``Matches.alongside``, its first append cannot)."""
        self._seeds.put(match_id, seed)

    def _keep(self, match_id: str, chance: Chance) -> Chance:
        if len(self._kept) > _CHANCES_KEPT:
            self._kept.clear()
        self._kept[match_id] = chance
        return chance


class Matches:
    """The command side's dependencies: ``create``, ``join`` and ``act`` take one."""

    def __init__(
        self, store: CommandStore, notify: Callable[[str], None], seeds: Seeds, folds: FoldCache | None = None,
        archived: Callable[[str], bool] = lambda match_id: False, alongside: bool = False,
        riding: Callable[[str, int], RidingRequest | None] | None = None,
    ) -> None:
        self.store = store
        # The store is Redis's, on the server of the seeds' vault and the player directory: a new
        # match's seed, and the names its view shows, go in the append's round trip.
        self.alongside = alongside
        self.archived = archived  # whether the match left Redis for the archive (its stream is gone)
        self.notify = notify  # asks the projector to catch a match up
        # The same request, to send in the round trip of the append that leads a match to a
        # version (one server only: None elsewhere; and per call, None when it cannot ride).
        self.riding = riding
        self.chances = Chances(seeds)
        self.folds = folds or FoldCache(CACHE_SIZE)
