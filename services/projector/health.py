"""``python -m services.projector health``: exit 0 if a projector worker of this host is registered.

The container health check of docker-compose: an RQ worker registers itself in Redis
and refreshes its heartbeat; a hung or dead worker drops out of the registry.
"""
from __future__ import annotations

import socket

from rq import Worker

from shared.config import Config
from shared.connect import connect


def main() -> int:
    config = Config.from_env()
    hostname = socket.gethostname()
    workers = Worker.all(connection=connect(config.queue_url))
    alive = [w for w in workers if w.hostname == hostname and config.queue_name in w.queue_names()]
    print(f"{len(alive)} projector worker(s) registered on {hostname}")
    return 0 if alive else 1
