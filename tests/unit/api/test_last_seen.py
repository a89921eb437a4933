"""When a session was last used: noted in memory by each request, written at most once a minute per token."""
from __future__ import annotations

from redis.exceptions import RedisClusterException

from services.api import last_seen
from services.api.last_seen import WRITE_EVERY_SECONDS, LastSeen
from shared import keys
from tests.waiting import wait_until

HASH_A, HASH_B = "a" * 64, "b" * 64


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def test_a_token_used_many_times_is_written_once_a_minute(fake_redis) -> None:
    clock = Clock()
    seen = LastSeen(fake_redis, clock=clock)
    seen._thread = object()  # the background writer stays unstarted: flush() is called here
    for _ in range(100):
        seen.saw("p1", HASH_A)
        clock.now += 0.1
    assert fake_redis.hgetall(keys.player_seen("p1")) == {}  # noted only: nothing written on the way
    assert seen.unwritten("p1") == {HASH_A: 1_009_900} and seen.unwritten("p2") == {}  # the latest use
    assert seen.flush() == 1
    assert fake_redis.hget(keys.player_seen("p1"), HASH_A) == b"1009900"
    seen.saw("p1", HASH_A)
    assert seen.flush() == 0  # written less than a minute ago
    clock.now += WRITE_EVERY_SECONDS
    seen.saw("p1", HASH_A)
    assert seen.flush() == 1 and int(fake_redis.hget(keys.player_seen("p1"), HASH_A)) == int(clock.now * 1000)


def test_a_token_heard_revoked_is_not_written_back(fake_redis) -> None:
    seen = LastSeen(fake_redis, revoked=lambda token_hash: token_hash == HASH_B, clock=Clock())
    seen._thread = object()
    seen.saw("p1", HASH_A)
    seen.saw("p1", HASH_B)
    assert seen.flush() == 1
    assert set(fake_redis.hgetall(keys.player_seen("p1"))) == {HASH_A.encode()}


class ClosingCluster:
    """A client whose first pipeline fails as a cluster client that is closing does, then works."""

    def __init__(self, client) -> None:
        self.client, self.failed = client, False

    def pipeline(self, **options):
        pipe = self.client.pipeline(**options)
        if not self.failed:
            self.failed = True

            def closing():
                raise RedisClusterException("The cluster has no default node to resolve the keys of this command")
            pipe.execute = closing
        return pipe


def test_the_background_writer_outlives_a_closing_cluster_client(fake_redis, monkeypatch) -> None:
    monkeypatch.setattr(last_seen, "FLUSH_SECONDS", 0.01)
    client = ClosingCluster(fake_redis)
    seen = LastSeen(client, clock=Clock())
    seen.saw("p1", HASH_A)
    wait_until(lambda: client.failed, what="the first write refused")
    seen.saw("p1", HASH_B)  # a use noted after it: the writer must still be there to write it
    wait_until(lambda: fake_redis.hget(keys.player_seen("p1"), HASH_B) is not None, what="the next use written")
    seen.stop()
