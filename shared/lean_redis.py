"""redis-py with its requests packed in one pass: the services' Redis client (``LeanRedis``), and the
append's round trip without a pipeline object (``one_round_trip``).

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


def supported(client: Any) -> bool:
    """Whether ``client`` is one server's client this module can send on (else: its own pipeline)."""
    return isinstance(client, redis.Redis) and client.connection is None  # not a single-connection client


class LeanPipeline(Pipeline):
    """redis-py's pipeline (its retries, connection handling, transactions), packed in one pass."""

    def _execute_pipeline(self, connection: Any, commands: list[tuple[Command, dict]], raise_on_error: bool) -> list:
        connection.send_packed_command([packed([args for args, _ in commands], connection.encoder.encode)])
        responses = _replies(self, connection, commands)
        if raise_on_error:
            self.raise_first_error(commands, responses)
        return responses


class LeanRedis(redis.Redis):
    """redis-py's client, whose pipelines are :class:`LeanPipeline`."""

    def pipeline(self, transaction: bool = True, shard_hint: Any = None) -> LeanPipeline:
        return LeanPipeline(self.connection_pool, self.response_callbacks, transaction, shard_hint)


def one_round_trip(client: redis.Redis, commands: Sequence[Command]) -> list[Any]:
    """Send ``commands`` at once and read every reply (an error reply as its exception): a pipeline's
    round trip without its bookkeeping, for the append on the path of every command."""
    pool = client.connection_pool
    connection = pool.get_connection()
    try:
        request = packed(commands, connection.encoder.encode)

        def attempt() -> list[Any]:
            connection.send_packed_command([request])
            return _replies(client, connection, [(command, {}) for command in commands])

        return connection.retry.call_with_retry(attempt, lambda error: connection.disconnect())
    finally:
        pool.release(connection)


def _replies(client: redis.Redis, connection: Any, commands: Sequence[tuple[Command, dict]]) -> list[Any]:
    """Every reply of ``commands`` (with their options), parsed by ``client``; an error reply as its exception."""
    replies: list[Any] = []
    try:
        for command, options in commands:
            try:
                replies.append(client.parse_response(connection, command[0], **options))
            except ResponseError as error:
                replies.append(error)
    except BaseException:
        connection.disconnect()  # replies left on the socket must not reach the pool's next borrower
        raise
    return replies
