"""``python -m services.bots``: the built-in bot, a registered player using the public API.

Its identity is the ``BOT_TOKEN`` secret, shared with the API (which seats this player as B
when a match is created with ``{"opponent": "bot"}``). Its player stream tells it where it
is on turn or asked a question, and it acts there (see :mod:`services.bots.player`), each
move decided in a pool of ``BOT_WORKERS`` processes by the match's level
(:mod:`services.bots.decisions`).
"""
from __future__ import annotations

import os
import random

from services.bots import decisions
from services.bots.player import BotPlayer
from services.bots.strategies import STRATEGIES
from services.client import TrucClient
from shared.bot import WeakBotTokenError, checked_bot_token
from shared.config import Config
from shared.observability import logs


def main() -> None:
    config = Config.from_env()
    logs.setup(config.log_format, config.log_level, service="bot")
    try:
        token = checked_bot_token(os.environ.get("BOT_TOKEN") or None)
    except WeakBotTokenError as weak:
        raise SystemExit(str(weak)) from None
    if token is None:
        raise SystemExit("BOT_TOKEN is not set: the bot has no identity (make run sets one)")
    client = TrucClient(f"http://{config.host}:{config.port}", token)
    fixed = os.environ.get("BOT_STRATEGY")  # one fixed player for every match; unset: each match's level
    if fixed:
        BotPlayer(client, STRATEGIES[fixed](random.Random())).wait_for_api().run_forever()
    with decisions.pool() as workers:
        BotPlayer(client, None, pool=workers).wait_for_api().run_forever()


if __name__ == "__main__":
    main()
