"""The services one app instance uses, wired once by ``create_app``."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask import current_app

from shared.checkpoints import Checkpoints
from shared.config import Network
from shared.eventstore import EventStore
from shared.readmodels import ReadModels

from .abuse_limits import Limiter
from .app import Matches
from .feeds import LiveFeeds
from .last_seen import LastSeen
from .passwords import Passwords
from .players import Player, PlayerRegistry
from .sessions import SessionRegistry
from .slots import Slots


@dataclass
class Services:
    redis: Any
    store: EventStore
    players: PlayerRegistry
    matches: Matches  # what the command use cases run on
    read_models: ReadModels
    queue_health: Callable[[], dict[str, Any]]
    bot: Callable[[], Player]  # the built-in bot's player (503 BOT_UNAVAILABLE when none is configured)
    streams: Slots  # how many live streams this process may still open
    feeds: LiveFeeds  # what the process's live streams watch, woken by its one subscriber
    keep_alive_seconds: float  # a live stream's keep-alive period
    waits: Slots  # how many reads may wait for a version at once: in all, and per client address
    limits: Limiter  # the abuse limits (API.md "Limits")
    queue_depths: Callable[[], dict[str, int]] = dict  # jobs waiting, by projector queue (for /metrics)
    trusted_proxies: tuple[Network, ...] = ()  # peers whose X-Forwarded-For names the client (addresses.py)
    checkpoints: Checkpoints = field(default_factory=Checkpoints)  # replays fold from these (shared.checkpoints)
    revoked: Callable[[str], bool] = lambda token_hash: False  # heard revoked by this process (revocations.py)
    name_reserve_seconds: int = 30 * 86400  # a renamed player's old name is kept from others this long
    erase_in_match: str = "resign"  # an erased player's unfinished matches: "resign" them, or "refuse" (409)
    archive: Any = None  # the archive's health (services.api.archive_health.ArchiveHealth); None: not reported
    sessions: SessionRegistry | None = None  # each device's token (sessions.py)
    passwords: Passwords | None = None  # players' password hashes (passwords.py)
    last_seen: LastSeen | None = None  # when each session was last used, written in the background (last_seen.py)
    matchmaker: Any = None  # quick pairing and rematches (matchmaking.Matchmaker)


def services() -> Services:
    return current_app.extensions["truc"]
