"""``python -m services.stack`` (``make run``): the whole stack in one terminal, under honcho.

Starts the embedded redis-server (unless REDIS_URL names another Redis), the API under
gunicorn, WORKERS projector workers and the bot player; Ctrl-C stops them all. Settings come from the
environment (shared.config), so a second ``make run`` with another PORT and DATA_DIR
runs beside the first.
"""
from __future__ import annotations

import os
import secrets
import shlex
import sys
from pathlib import Path

from shared.config import Config
from shared.private_files import PRIVATE_UMASK, private_dir, secret_file


def procfile(config: Config) -> str:
    python = shlex.quote(sys.executable)
    lines = []
    if config.embedded_redis:
        socket = shlex.quote(config.redis_url.removeprefix("unix://"))
        data = shlex.quote(str(config.data_dir / "redis"))
        lines.append(f"redis: {python} -m services.embedded_redis --unix-socket {socket} --data-dir {data}")
    # honcho gives each process a PORT of its own; the API's is set on its line.
    lines.append(f"api: PORT={config.port} {python} -m services.api")
    lines.append(f"timer: {python} -m services.api timer")
    lines.append(f"worker: {python} -m services.projector")
    lines.append(f"bot: PORT={config.port} {python} -m services.bots")
    return "\n".join(lines) + "\n"


def _bot_token(data_dir: Path) -> str:
    """The built-in bot's secret, made once per DATA_DIR (the API seats it, the bot plays with it)."""
    return secret_file(data_dir / "bot.token", lambda: secrets.token_urlsafe(32))


def main() -> None:
    config = Config.from_env()
    os.umask(PRIVATE_UMASK)  # every process below inherits it: the AOF, logs and sockets are the owner's
    private_dir(config.data_dir)
    path = config.data_dir / "Procfile"
    path.write_text(procfile(config))
    redis_dir = config.data_dir / "redis"
    where = f"embedded redis-server, AOF in {redis_dir}" if config.embedded_redis else config.redis_url
    print(f"Le Truc: http://{config.host}:{config.port}/  (API docs: /docs; Redis: {where}; "
          f"{config.workers} projector workers and the bot; Ctrl-C stops everything)", flush=True)
    # Every process inherits the resolved settings, whatever its working directory.
    os.environ.update(DATA_DIR=str(config.data_dir), REDIS_URL=config.redis_url, QUEUE_URL=config.queue_url,
                      BOT_TOKEN=config.bot_token or _bot_token(config.data_dir))
    root = Path(__file__).resolve().parent.parent
    os.execvp(sys.executable, [
        sys.executable, "-m", "honcho", "start", "-f", str(path), "-d", str(root),
        "-c", f"worker={config.workers}", "--no-colour",
    ])


if __name__ == "__main__":
    main()
