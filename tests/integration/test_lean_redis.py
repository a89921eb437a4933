"""The services' Redis client, whose pipelines are packed in one pass, on a real redis-server."""
import pytest
import redis
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.lean_redis import LeanPipeline, LeanRedis, packed

_args = st.tuples(st.sampled_from(["SET", "SCRIPT LOAD", "EVALSHA"]), st.lists(
    st.text(max_size=8) | st.binary(max_size=8) | st.integers() | st.floats(allow_nan=False), max_size=6),
).map(lambda command: (command[0], *command[1]))


@pytest.fixture
def lean(redis_server, redis_client):
    """A LeanRedis on the session's server (emptied by ``redis_client``)."""
    client = LeanRedis.from_url(redis_server.url)
    yield client
    client.close()


def _sent(client, commands, raise_on_error=False):
    pipe = client.pipeline(transaction=False)
    for command in commands:
        pipe.execute_command(*command)
    return pipe.execute(raise_on_error=raise_on_error)


@settings(max_examples=200)
@given(st.lists(_args, min_size=1, max_size=3))
def test_packed_as_redis_py_packs(commands):
    connection = redis.Connection()
    assert packed(commands, connection.encoder.encode) == b"".join(connection.pack_commands(commands))


def test_replies_in_order_parsed_as_the_client_parses_them(lean):
    replies = _sent(lean, [("SET", "k", "v"), ("INCR", "k"), ("HSET", "h", "f", 1), ("HGETALL", "h"), ("GET", "k")])
    assert replies[0] is True and isinstance(replies[1], redis.ResponseError)  # an error in its place
    assert replies[2:] == [1, {b"f": b"1"}, b"v"]  # the replies after it read all the same
    assert lean.get("k") == b"v"  # the connection went back to the pool in step
    assert not lean.connection_pool._in_use_connections


def test_a_connection_killed_between_round_trips_is_replaced(lean, redis_client):
    _sent(lean, [("SET", "k", 1)])
    redis_client.client_kill_filter(_type="normal", skipme=True)
    assert _sent(lean, [("INCR", "k")]) == [2]


def test_a_lean_pipeline_answers_as_redis_pys(lean, redis_client):
    answers = []
    for client in (lean, redis_client):
        pipe = client.pipeline(transaction=False)
        pipe.set("n", 1).incr("n").hset("h", mapping={"a": 1, "b": "x"}).hgetall("h").zadd("z", {"m": 2.5})
        pipe.zrange("z", 0, -1, withscores=True).xadd("s", {"f": "v"}, id="1-0").xrange("s").hget("h", "missing")
        answers.append(pipe.execute())
        redis_client.flushall()
    assert isinstance(lean.pipeline(transaction=False), LeanPipeline)
    assert answers[0] == answers[1]


def test_a_lean_pipelines_error_is_raised_after_every_reply_is_read(lean):
    lean.set("k", "text")
    pipe = lean.pipeline(transaction=False)
    pipe.incr("k").set("after", 1)
    with pytest.raises(redis.ResponseError, match="Command # 1"):
        pipe.execute()
    assert lean.get("after") == b"1"  # sent and answered in the same round trip
    pipe.incr("k").get("after")
    assert [type(reply) for reply in pipe.execute(raise_on_error=False)] == [redis.ResponseError, bytes]
