"""Bearer tokens are looked up in Redis once, then remembered for a short while."""
import hashlib
import threading

import pytest

from services.api.players import NameTakenError, Player, PlayerRegistry
from services.api.token_cache import TokenCache
from shared import keys

TTL = 60.0


class CountingRedis:
    """A Redis client that counts the commands it is sent."""

    def __init__(self, inner):
        self._inner = inner
        self.calls = []

    def __getattr__(self, name):
        command = getattr(self._inner, name)

        def counted(*args, **kwargs):
            self.calls.append(name)
            return command(*args, **kwargs)
        return counted


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def redis(fake_redis):
    return CountingRedis(fake_redis)


@pytest.fixture
def cache(clock):
    return TokenCache(max_entries=3, ttl_seconds=TTL, clock=clock)


@pytest.fixture
def players(redis, cache):
    return PlayerRegistry(redis, cache)


def _looked_up(players, redis, token):
    """The player of ``token`` and how many Redis commands the lookup sent."""
    before = len(redis.calls)
    return players.by_token(token), len(redis.calls) - before


def _forget_in_redis(redis, player, token):
    redis.delete(keys.player(player.id), keys.player_token(hashlib.sha256(token.encode()).hexdigest()))


def test_a_second_lookup_within_the_ttl_sends_no_redis_command(players, redis, clock):
    alice, token = players.register("alice")
    assert _looked_up(players, redis, token) == (alice, 0)  # remembered when it was registered
    clock.now += TTL
    assert _looked_up(players, redis, token) == (alice, 2)  # GET of the token, HGETALL of the player
    clock.now += TTL - 1
    assert _looked_up(players, redis, token) == (alice, 0)


def test_an_entry_expires_after_the_ttl(players, redis, clock):
    alice, token = players.register("alice")
    players.by_token(token)
    _forget_in_redis(redis, alice, token)
    assert players.by_token(token) == alice  # still remembered
    clock.now += TTL
    assert _looked_up(players, redis, token) == (None, 1)


def test_unknown_tokens_always_ask_redis_and_are_never_remembered(players, redis, cache):
    for _ in range(2):
        assert _looked_up(players, redis, "forged") == (None, 1)
    assert len(cache) == 0
    bot = players.ensure("bot-id", "Bot", "forged")  # a player with that token appears later
    assert players.by_token("forged") == bot  # found at once


def test_the_cache_is_keyed_by_the_token_hash(players, cache):
    alice, token = players.register("alice")
    players.by_token(token)
    assert cache.get(hashlib.sha256(token.encode()).hexdigest()) == alice and cache.get(token) is None


def test_the_cache_stays_bounded_and_forgets_the_least_recently_used(players, redis, cache):
    registered = [players.register(name) for name in ("alice", "bob", "carol", "dave")]
    for _, token in registered[:3]:
        players.by_token(token)
    players.by_token(registered[0][1])  # alice is now the most recently used, bob the least
    players.by_token(registered[3][1])  # dave pushes bob out
    assert len(cache) == 3
    assert _looked_up(players, redis, registered[0][1])[1] == 0
    assert _looked_up(players, redis, registered[1][1]) == (registered[1][0], 2)


def test_the_cache_is_safe_to_share_between_threads(clock):
    cache = TokenCache(max_entries=50, ttl_seconds=TTL, clock=clock)
    errors = []

    def hammer(worker):
        try:
            for n in range(2000):
                key = f"{worker}-{n % 80}"
                cache.put(key, Player(key, key))
                found = cache.get(key)
                assert found is None or found.id == key
        except Exception as error:  # reported by the main thread
            errors.append(error)

    threads = [threading.Thread(target=hammer, args=(worker,)) for worker in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and len(cache) == 50


def test_a_name_taken_leaves_no_trace_of_the_second_player(players, fake_redis):
    alice, token = players.register("alice")
    before = sorted(fake_redis.keys())
    with pytest.raises(NameTakenError):
        players.register("ALICE")  # names are unique case-insensitively
    assert sorted(fake_redis.keys()) == before  # its player hash and token were undone
    assert players.by_token(token) == alice
