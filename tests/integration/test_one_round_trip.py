"""Commands packed and sent in one round trip without redis-py's pipeline, on a real redis-server."""
import redis
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.eventstore.round_trip import one_round_trip, packed, supported

_args = st.tuples(st.sampled_from(["SET", "SCRIPT LOAD", "EVALSHA"]), st.lists(
    st.text(max_size=8) | st.binary(max_size=8) | st.integers() | st.floats(allow_nan=False), max_size=6),
).map(lambda command: (command[0], *command[1]))


@settings(max_examples=200)
@given(st.lists(_args, min_size=1, max_size=3))
def test_packed_as_redis_py_packs(commands):
    connection = redis.Connection()
    assert packed(commands, connection.encoder.encode) == b"".join(connection.pack_commands(commands))


def test_replies_in_order_parsed_as_the_client_parses_them(redis_client):
    replies = one_round_trip(redis_client, [("SET", "k", "v"), ("INCR", "k"), ("HSET", "h", "f", 1),
                                            ("HGETALL", "h"), ("GET", "k")])
    assert replies[0] is True and isinstance(replies[1], redis.ResponseError)  # an error in its place
    assert replies[2:] == [1, {b"f": b"1"}, b"v"]  # the replies after it read all the same
    assert redis_client.get("k") == b"v"  # the connection went back to the pool in step
    assert not redis_client.connection_pool._in_use_connections


def test_a_connection_killed_between_round_trips_is_replaced(redis_client):
    one_round_trip(redis_client, [("SET", "k", 1)])
    redis.Redis(connection_pool=redis.ConnectionPool.from_url(
        f"redis://{redis_client.connection_pool.connection_kwargs['host']}:"
        f"{redis_client.connection_pool.connection_kwargs['port']}")).client_kill_filter(_type="normal",
                                                                                         skipme=True)
    assert one_round_trip(redis_client, [("INCR", "k")]) == [2]


def test_only_one_servers_pooled_client_is_sent_on(redis_client, redis_server):
    assert supported(redis_client)
    assert not supported(redis.Redis.from_url(redis_server.url, single_connection_client=True))
