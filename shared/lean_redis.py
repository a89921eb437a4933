"""redis-py with its pipelines packed in one pass: the services' Redis client (``LeanRedis``).

redis-py packs each argument of a request through several calls, and its pipeline wraps a
round trip in bookkeeping: for an append (~35 arguments) or a catch-up's writes, more Python
than the commands cost Redis. Here requests are packed in one pass (RESP: strings, bytes and
integers as they are; anything else through the connection's encoder), and their replies read
in order through the client's own reply parsing, so what callers get back is unchanged.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import redis
from redis.client import Pipeline
from redis.exceptions import ResponseError

Command = Sequence[Any]


def packed(commands: Sequence[Command], encode: Callable[[Any], bytes]) -> bytes:
    """``commands`` as RESP arrays of bulk strings, ready to send."""
    parts: list[bytes] = []
    for command in commands:
        if type(command[0]) is str and " " in command[0]:  # "SCRIPT LOAD": two words, as redis-py sends them
            command = (*command[0].split(), *command[1:])
        parts.append(b"*%d\r\n" % len(command))
        for arg in command:
            kind = type(arg)
            if kind is bytes:
                raw = arg
            elif kind is str:
                raw = arg.encode()
            elif kind is int:
                raw = b"%d" % arg
            else:  # floats, memoryviews, ...: as redis-py would send them (and refuses what it would)
                raw = encode(arg)
            parts.append(b"$%d\r\n%s\r\n" % (len(raw), raw))
    return b"".join(parts)


class LeanPipeline(Pipeline):
    """redis-py's pipeline (its retries, connection handling, transactions), packed in one pass."""

    def _execute_pipeline(self, connection: Any, commands: list[tuple[Command, dict]], raise_on_error: bool) -> list:
        connection.send_packed_command([packed([args for args, _ in commands], connection.encoder.encode)])
        responses: list[Any] = []
        try:
            for args, options in commands:
                try:
                    responses.append(self.parse_response(connection, args[0], **options))
                except ResponseError as error:
                    responses.append(error)
        except BaseException:
            connection.disconnect()  # replies left on the socket must not reach the pool's next borrower
            raise
        if raise_on_error:
            self.raise_first_error(commands, responses)
        return responses


class LeanRedis(redis.Redis):
    """redis-py's client, whose pipelines are :class:`LeanPipeline`."""

    def pipeline(self, transaction: bool = True, shard_hint: Any = None) -> LeanPipeline:
        return LeanPipeline(self.connection_pool, self.response_callbacks, transaction, shard_hint)
