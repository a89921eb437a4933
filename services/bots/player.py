"""A bot seat: told by its player stream where it is awaited, it plays each move its strategy picks.

It never lists its matches: the stream sends, at once, every playing match that awaits
the bot, then a ``turn`` each time one starts awaiting it. So a server with thousands of
dead matches costs an idle bot nothing. After a drop it reconnects from the last position
it saw (``Last-Event-ID``), as the terminal client reconnects a match stream; notices are
hints, so each move is decided on the match's view, sent with ``If-Match``.

With a pool (``services.bots.decisions``) the stream only reads views and hands them on:
the moves are decided in the pool's processes and sent as each is ready, so a search in
one match never holds up the notices of the others. What the bot learns of each opponent
over a match (``shared.botplay.memory``) stays here and goes to the pool with each view.
"""
from __future__ import annotations

import logging
import time
from concurrent.futures import Executor, Future, ThreadPoolExecutor

from services.bots import decisions
from services.bots.strategies import Strategy
from services.client import ApiError, ServerEvent, TrucClient
from shared.bot import BOT_PLAYER_ID
from shared.botplay.memory import Memory
from shared.observability.log_context import bound

log = logging.getLogger(__name__)

RETRY_SECONDS = 2.0  # before reconnecting a dropped or refused stream (the server's `retry:`)


class BotPlayer:
    def __init__(self, client: TrucClient, strategy: Strategy | None, player_id: str = BOT_PLAYER_ID,
                 pool: Executor | None = None) -> None:
        self.client = client
        self.strategy = strategy  # decides in the stream's thread; None: the pool decides by each match's level
        self.pool = pool
        self._senders = ThreadPoolExecutor(4, thread_name_prefix="bot-send") if pool is not None else None
        self.player_id = player_id
        self.position: str | None = None  # the last feed position seen: a reconnect reads on from it
        self._acted: dict[str, int] = {}  # match id -> the version of the view last acted on
        self._memories: dict[str, Memory] = {}  # match id -> what the bot has learnt of its opponent there

    def wait_for_api(self, timeout: float = 60) -> BotPlayer:
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.client.scoreboard(limit=1)
                return self
            except (OSError, ApiError) as error:
                if time.monotonic() > deadline:
                    raise
                log.info("waiting for the API: %s", error)
                time.sleep(0.2)

    def run_forever(self, retry_seconds: float = RETRY_SECONDS) -> None:
        """Follow the player stream for good, reconnecting after each drop."""
        while True:
            try:
                self.follow()
            except (OSError, ApiError) as error:
                log.warning("player stream: %s; reconnecting", error)
            time.sleep(retry_seconds)

    def follow(self) -> None:
        """Play on each notice of one connection of the player stream, until it drops."""
        for event in self.client.player_stream(self.player_id, self.position):
            self.on_event(event)

    def on_event(self, event: ServerEvent) -> bool:
        """Act on one notice; True if the bot acted. The position moves on only once it is handled."""
        acted = False
        if event.event == "turn" and event.data is not None:
            with bound(match_id=event.data["match_id"]):
                acted = self._play(event.data["match_id"], event.data["version"])
        elif event.event == "match" and event.data is not None and event.data["status"] != "playing":
            self._acted.pop(event.data["match_id"], None)
            self._memories.pop(event.data["match_id"], None)
        if event.id is not None:
            self.position = event.id
        return acted

    def _play(self, match_id: str, version: int) -> bool:
        if self._acted.get(match_id, 0) >= version:
            return False  # told twice, or about a position already acted on
        try:
            view = self.client.view(match_id, min_version=version, wait=5)
        except ApiError as error:
            log.warning("match %s: cannot read it: %s", match_id, error)
            return False
        if self.pool is not None:
            self._acted[match_id] = view["version"]  # in the pool: told again meanwhile, it is not asked twice
            memory = self._memories.setdefault(match_id, Memory())
            memory.learn(view)
            decided = decisions.submit(self.pool, view, memory.record)
            decided.add_done_callback(lambda done: self._senders.submit(self._send, match_id, view, done, memory))
            return True
        action = self.strategy(view)
        if action is None:
            return False  # the match moved on: a newer notice tells whether it awaits the bot
        return self._act(match_id, view, action)

    def _send(self, match_id: str, view: dict, decided: Future, memory: Memory) -> None:
        try:
            action = decided.result()
        except Exception:  # a failed decision is logged; the clock's default decision covers the turn
            log.exception("match %s: the decision failed", match_id)
            return
        if action is not None:
            memory.acted(view, action)  # before it is sent: the answer's notice may come at once
            with bound(match_id=match_id):
                self._act(match_id, view, action)

    def _act(self, match_id: str, view: dict, action: dict) -> bool:
        try:
            self.client.act(match_id, action, if_match=view["version"])
        except ApiError as error:
            if error.code != "VERSION_CONFLICT":
                log.warning("match %s: %s refused: %s", match_id, action, error)
            return False
        self._acted[match_id] = view["version"]
        return True
