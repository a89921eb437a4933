"""``python -m services.stack`` (``make run``): the whole stack in one terminal, kept up.

Starts the embedded redis-server (unless REDIS_URL names another Redis), the API under
gunicorn, the timer, the pairer, WORKERS projector workers, ARCHIVERS archivers and the bot player, under supervisord
(:mod:`services.supervision`): a process that dies is started again while the others keep
serving (the API answers 503 while Redis is away), and Ctrl-C stops them all. Settings
come from the environment (shared.config), so a second ``make run`` with another PORT and
DATA_DIR runs beside the first.
"""
from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path

from shared.config import Config
from shared.private_files import PRIVATE_UMASK, private_dir, secret_file

from .supervision import Group, Program, supervise


def groups(config: Config) -> list[Group]:
    """What ``make run`` keeps running: the embedded Redis first, then the services (stopped before it)."""
    python = sys.executable
    found = []
    if config.embedded_redis:
        socket, data = config.redis_url.removeprefix("unix://"), str(config.data_dir / "redis")
        found.append(Group("redis", [Program("redis", [python, "-m", "services.embedded_redis", "--unix-socket",
                                                       socket, "--data-dir", data])]))
    workers = [Program("worker", [python, "-m", "services.projector"], copies=config.workers)] if config.workers else []
    archivers = [Program("archiver", [python, "-m", "services.archiver"], copies=config.archivers)] \
        if config.archivers else []
    found.append(Group("services", [Program("api", [python, "-m", "services.api"]),
                                    Program("timer", [python, "-m", "services.api", "timer"]),
                                    Program("pairer", [python, "-m", "services.api", "pairer"]),
                                    *workers, *archivers, Program("bot", [python, "-m", "services.bots"])]))
    return found


def _bot_token(data_dir: Path) -> str:
    """The built-in bot's secret, made once per DATA_DIR (the API seats it, the bot plays with it)."""
    return secret_file(data_dir / "bot.token", lambda: secrets.token_urlsafe(32))


def main() -> None:
    config = Config.from_env()
    os.umask(PRIVATE_UMASK)  # every process below inherits it: the AOF, logs and sockets are the owner's
    private_dir(config.data_dir)
    redis_dir = config.data_dir / "redis"
    where = f"embedded redis-server, AOF in {redis_dir}" if config.embedded_redis else config.redis_url
    print(f"Le Truc: http://{config.host}:{config.port}/  (API docs: /docs; Redis: {where}; "
          f"{config.workers} projector workers and the bot; Ctrl-C stops everything)", flush=True)
    # Every process inherits the resolved settings, whatever its working directory.
    os.environ.update(DATA_DIR=str(config.data_dir), REDIS_URL=config.redis_url, QUEUE_URL=config.queue_url,
                      BOT_TOKEN=config.bot_token or _bot_token(config.data_dir), PORT=str(config.port))
    os.chdir(Path(__file__).resolve().parent.parent)  # ``-m services.…`` finds the project from any directory
    supervise(groups(config), config.data_dir)


if __name__ == "__main__":
    main()
