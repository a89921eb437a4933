"""``python -m services.api``: serve the API with gunicorn (never Flask's development server).

It waits for Redis, then replaces itself with gunicorn bound to HOST:PORT, serving the app
that ``services.api.app_from_env()`` builds in each gunicorn process. gthread workers: a
read with ``wait`` blocks a thread, not a process.
"""
from __future__ import annotations

import os
import sys

from shared.config import Config
from shared.connect import connect, wait_until_reachable


def main() -> None:
    config = Config.from_env()
    wait_until_reachable(connect(config.redis_url))
    args = [
        sys.executable, "-m", "gunicorn", "services.api:app_from_env()",
        "--bind", f"{config.host}:{config.port}",
        "--workers", str(config.api_workers),
        "--worker-class", "gthread",
        "--threads", str(config.api_threads),
        "--graceful-timeout", "5",
    ]
    if config.access_log:
        args += ["--access-logfile", "-"]
    os.execv(sys.executable, args)


if __name__ == "__main__":
    main()
