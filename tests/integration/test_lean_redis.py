"""Commands packed and sent in one round trip without redis-py's pipeline, on a real redis-server."""
import pytest
import redis
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.lean_redis import one_round_trip, packed, supported

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


def test_a_lean_pipeline_answers_as_redis_pys(redis_server):
    from shared.lean_redis import LeanPipeline, LeanRedis

    lean, plain = LeanRedis.from_url(redis_server.url), redis.Redis.from_url(redis_server.url)
    plain.flushall()
    answers = []
    for client in (lean, plain):
        pipe = client.pipeline(transaction=False)
        pipe.set("n", 1).incr("n").hset("h", mapping={"a": 1, "b": "x"}).hgetall("h").zadd("z", {"m": 2.5})
        pipe.zrange("z", 0, -1, withscores=True).xadd("s", {"f": "v"}, id="1-0").xrange("s").hget("h", "missing")
        answers.append(pipe.execute())
        plain.flushall()
    assert isinstance(lean.pipeline(transaction=False), LeanPipeline)
    assert answers[0] == answers[1]


def test_a_lean_pipelines_error_is_raised_after_every_reply_is_read(redis_server):
    from shared.lean_redis import LeanRedis

    client = LeanRedis.from_url(redis_server.url)
    client.set("k", "text")
    pipe = client.pipeline(transaction=False)
    pipe.incr("k").set("after", 1)
    with pytest.raises(redis.ResponseError, match="Command # 1"):
        pipe.execute()
    assert client.get("after") == b"1"  # sent and answered in the same round trip
    pipe.incr("k").get("after")
    assert [type(reply) for reply in pipe.execute(raise_on_error=False)] == [redis.ResponseError, bytes]
