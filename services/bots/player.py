"""A bot seat: finds its matches through the API and plays each move its strategy picks."""
from __future__ import annotations

import logging
import time

from services.bots.strategies import Strategy
from services.client import ApiError, TrucClient
from shared.bot import BOT_PLAYER_ID

log = logging.getLogger(__name__)


class BotPlayer:
    def __init__(self, client: TrucClient, strategy: Strategy, player_id: str = BOT_PLAYER_ID) -> None:
        self.client = client
        self.strategy = strategy
        self.player_id = player_id
        self._seen: dict[str, int] = {}  # match id -> the version last acted on or checked

    def wait_for_api(self, timeout: float = 60) -> BotPlayer:
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.client.scoreboard(limit=1)
                return self
            except (OSError, ApiError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def run_forever(self, poll_seconds: float = 0.2) -> None:
        while True:
            try:
                if not self.play_once():
                    time.sleep(poll_seconds)
            except (OSError, ApiError) as error:
                log.warning("%s; retrying", error)
                time.sleep(1)

    def play_once(self) -> bool:
        """Act once in every match that waits for the bot; True if it acted anywhere."""
        acted = False
        try:
            playing = self.client.my_matches(self.player_id, status="playing")
        except ApiError as error:
            if error.code == "NOT_FOUND":
                return False  # the API registers the bot when it first seats it: no match yet
            raise
        for summary in playing:
            if self._seen.get(summary["id"]) == summary["version"]:
                continue
            acted |= self._play(summary["id"], summary["version"])
        current = {summary["id"] for summary in playing}
        self._seen = {match: version for match, version in self._seen.items() if match in current}
        return acted

    def _play(self, match_id: str, version: int) -> bool:
        view = self.client.view(match_id, min_version=version, wait=5)
        action = self.strategy(view)
        self._seen[match_id] = view["version"]
        if action is None:
            return False
        try:
            self.client.act(match_id, action, if_match=view["version"])
        except ApiError as error:
            if error.code != "VERSION_CONFLICT":
                log.warning("match %s: %s refused: %s", match_id, action, error)
            self._seen.pop(match_id, None)  # look again
        return True
