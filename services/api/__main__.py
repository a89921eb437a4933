"""``python -m services.api [serve | timer | pairer]``: the command service's one launcher.

- ``serve`` (the default) waits for Redis, then replaces itself with gunicorn bound to
  HOST:PORT, serving the app ``services.api.app_from_env()`` builds in each gunicorn
  process (never Flask's development server). gevent workers (gunicorn monkey-patches
  each worker before it loads the app; ``gunicorn_config.py`` closes a client socket that
  stalls for ``STALLED_CLIENT_SECONDS``): a request is a greenlet, so a live stream or a
  read with ``wait`` costs a little memory, not a thread, and one process holds
  ``WORKER_CONNECTIONS`` connections. Its file-descriptor limit is raised to match.
- ``timer`` fires the timeouts and lobby expiries that fall due (:mod:`services.api.timer`),
  its metrics on ``METRICS_PORT`` (or the next free port).
- ``pairer`` pairs open seeks every ``PASS_SECONDS`` and remakes pairings whose maker died
  (:mod:`services.api.matchmaking`); any number may run beside the API processes.

Both log as ``LOG_FORMAT`` says (gunicorn's own lines too, through ``gunicorn_config.py``).
With metrics on, ``serve`` empties the gunicorn processes' metric directory first
(``PROMETHEUS_MULTIPROC_DIR``, private, under DATA_DIR unless set).
"""
from __future__ import annotations

import os
import resource
import sys
from pathlib import Path
from typing import Any

from services.api import create_app
from services.api.pairer import pair_forever
from services.api.players import PlayerRegistry
from services.api.timer import Timer, run_forever
from shared.bot import BOT_NAME, BOT_PLAYER_ID, WeakBotTokenError, checked_bot_token
from shared.config import Config
from shared.connect import connect, wait_until_reachable
from shared.observability import exposition, logs

CONFIG_FILE = Path(__file__).with_name("gunicorn_config.py")


def seat_the_bot(client: Any, token: str | None) -> None:
    """Give the bot's player this start's token alone: a token of an earlier start (rotated,
    perhaps leaked) stops working now, and with no BOT_TOKEN the bot has no token at all."""
    PlayerRegistry(client).seat_token(BOT_PLAYER_ID, BOT_NAME, token)


def claim_old_lookalikes(client: Any) -> None:
    """Names kept under an older skeleton get today's look-alike claims, once, before anything is served."""
    PlayerRegistry(client).claim_old_lookalikes()


def main(argv: list[str] | None = None) -> None:
    command = (sys.argv[1:] if argv is None else argv) or ["serve"]
    if command == ["timer"]:
        return _timer()
    if command == ["pairer"]:
        return _pairer()
    if command != ["serve"]:
        raise SystemExit("usage: python -m services.api [serve | timer | pairer]")
    _serve()


def _timer() -> None:
    config = Config.from_env()
    logs.setup(config.log_format, config.log_level, service="timer")
    wait_until_reachable(connect(config.redis_url))
    if config.metrics:
        exposition.serve(config.host, config.metrics_port)
    ctx = create_app(config).extensions["truc"]
    run_forever(Timer(ctx.matches, ctx.read_models, config.lobby_seconds, ended=ctx.limits.ended))


def _pairer() -> None:
    config = Config.from_env()
    logs.setup(config.log_format, config.log_level, service="pairer")
    wait_until_reachable(connect(config.redis_url))
    if config.metrics:
        exposition.serve(config.host, config.metrics_port)
    pair_forever(create_app(config).extensions["truc"].matchmaker)


def _serve() -> None:
    config = Config.from_env()
    logs.setup(config.log_format, config.log_level, service="api")
    if config.metrics:  # gunicorn's processes share it: each writes its values there, /metrics sums them
        exposition.prepare_multiprocess_dir(config.metrics_dir)
    try:
        token = checked_bot_token(config.bot_token)
    except WeakBotTokenError as weak:
        raise SystemExit(str(weak)) from None
    client = connect(config.redis_url)
    wait_until_reachable(client)
    seat_the_bot(client, token)
    claim_old_lookalikes(client)
    args = [
        sys.executable, "-m", "gunicorn", "services.api:app_from_env()",
        "--bind", f"{config.host}:{config.port}",
        "--workers", str(config.api_workers),
        "--config", f"file:{CONFIG_FILE}",  # the gevent worker, with a bound on stalled clients
        "--worker-connections", str(config.worker_connections),
        "--timeout", "30",  # a worker whose loop stalls this long is restarted
        "--graceful-timeout", "5",
        "--keep-alive", "5",  # an idle keep-alive connection is closed after this long
    ]
    _raise_open_files(config.worker_connections + 1000)
    os.execv(sys.executable, args)


def _raise_open_files(wanted: int) -> None:
    """Let each process hold ``wanted`` sockets, as far as the hard limit allows (gunicorn's processes inherit it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


if __name__ == "__main__":
    main()
