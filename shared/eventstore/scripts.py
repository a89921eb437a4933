"""Lua scripts run by SHA with an EVAL fallback, on a single Redis or a Redis Cluster.

Scripts are sent as raw EVALSHA (falling back to EVAL on NOSCRIPT) because redis-py's
``Script`` object cannot run inside a cluster pipeline. Every key a script touches must
be passed in ``script_keys``, all in one hash-tag slot, so it runs unchanged on a cluster.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from redis.exceptions import NoScriptError


class Script:
    """A Lua script run by SHA, loaded on demand; works on redis.Redis and RedisCluster."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()

    def __call__(self, client: Any, script_keys: Sequence[str], args: Sequence[Any]) -> Any:
        """Run the script on ``client`` with ``script_keys`` as KEYS and ``args`` as ARGV."""
        try:
            return client.execute_command("EVALSHA", self.sha, len(script_keys), *script_keys, *args)
        except NoScriptError:
            # First use on this node (or after SCRIPT FLUSH / failover): EVAL loads it.
            return client.execute_command("EVAL", self.source, len(script_keys), *script_keys, *args)
