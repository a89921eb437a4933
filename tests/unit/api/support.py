"""The API as the unit tests build it: one fake Redis for the store and the queue."""
from __future__ import annotations

from typing import Any

from flask import Flask

from services.api import create_app
from shared.config import Config


def fake_app(client: Any, env: dict[str, str] | None = None, **options: Any) -> Flask:
    """The API on ``client`` (its queue too), with settings from ``env`` (REDIS_URL unused)."""
    return create_app(Config.from_env({"REDIS_URL": "redis://unused", **(env or {})}),
                      redis_client=client, queue_client=client, **options)
