"""Commands sent to one Redis server in one round trip, packed here rather than by redis-py's pipeline.

Every command of the game goes through one append round trip (the script, and what rides it).
redis-py's ``Pipeline`` costs that round trip more Python than the script costs Redis: it
encodes each of an append's ~35 arguments through several calls, and wraps the round trip
in bookkeeping a plain list of commands does not need. Here the commands are packed in one
pass (RESP: strings, bytes and integers as they are; anything else through the connection's
encoder) and their replies read in order, through the client's own reply parsing, on a
connection of its pool under its retry policy, like a pipeline's. A reply that is an error
comes back as the exception, in its place.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import redis
from redis.exceptions import ResponseError

Command = Sequence[Any]


def packed(commands: Sequence[Command], encode: Callable[[Any], bytes]) -> bytes:
    """``commands`` as RESP arrays of bulk strings, ready to send."""
    parts: list[bytes] = []
    for command in commands:
        if " " in command[0]:  # "SCRIPT LOAD": two words, as redis-py sends them
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


def one_round_trip(client: redis.Redis, commands: Sequence[Command]) -> list[Any]:
    """Send ``commands`` at once and read every reply (an error reply as its exception)."""
    pool = client.connection_pool
    connection = pool.get_connection()
    try:
        request = packed(commands, connection.encoder.encode)

        def attempt() -> list[Any]:
            connection.send_packed_command([request])
            return _replies(client, connection, commands)

        return connection.retry.call_with_retry(attempt, lambda error: connection.disconnect())
    finally:
        pool.release(connection)


def _replies(client: redis.Redis, connection: Any, commands: Sequence[Command]) -> list[Any]:
    replies: list[Any] = []
    try:
        for command in commands:
            try:
                replies.append(client.parse_response(connection, command[0]))
            except ResponseError as error:
                replies.append(error)
    except BaseException:
        connection.disconnect()  # replies left on the socket must not reach the pool's next borrower
        raise
    return replies
