"""Token rotation: a new token for the player, and the old one refused by every process that remembered it."""
from __future__ import annotations

import fakeredis
import pytest

from services.api.players import Player
from services.api.revocation_listener import Revocations
from services.api.token_cache import TokenCache
from shared import keys
from shared.revocations import revoke
from tests.unit.api.support import fake_app
from tests.waiting import wait_until

TTL = 60.0


def register(http, name: str) -> tuple[str, str]:
    body = http.post("/players", json={"name": name}).get_json()
    return body["id"], body["token"]


def status(http, token: str) -> int:
    return http.post("/stream-tickets", headers={"Authorization": f"Bearer {token}"}).status_code


def test_a_rotated_token_is_refused_and_the_new_one_works(fake_redis) -> None:
    http = fake_app(fake_redis).test_client()
    player_id, old = register(http, "alice")
    for _ in range(3):
        assert status(http, old) == 201  # remembered by this process
    rotated = http.post("/players/me/token", headers={"Authorization": f"Bearer {old}"})
    assert rotated.status_code == 201 and set(rotated.get_json()) == {"token"}
    new = rotated.get_json()["token"]
    assert new != old and len(new) >= 32
    assert status(http, old) == 401 and status(http, new) == 201
    me = http.get(f"/players/{player_id}/stream", headers={"Authorization": f"Bearer {new}"}, buffered=False)
    assert me.status_code == 200  # the same player
    me.close()


def test_a_token_rotates_once_a_second_rotation_of_it_is_refused(fake_redis) -> None:
    http = fake_app(fake_redis).test_client()
    _, old = register(http, "alice")
    first = http.post("/players/me/token", headers={"Authorization": f"Bearer {old}"})
    second = http.post("/players/me/token", headers={"Authorization": f"Bearer {old}"})
    assert first.status_code == 201 and second.status_code == 401
    assert second.get_json()["error"] == "UNAUTHENTICATED"
    assert len(fake_redis.keys(keys.player_token("*"))) == 1  # the winner's token alone
    assert http.post("/players/me/token").status_code == 401


def test_another_process_that_remembered_the_old_token_refuses_it(fake_redis) -> None:
    one, other = fake_app(fake_redis).test_client(), fake_app(fake_redis).test_client()
    _, old = register(one, "alice")
    wait_until(lambda: status(other, old) == 201 and _hears(other), timeout=10, what="the other process to hear")
    new = one.post("/players/me/token", headers={"Authorization": f"Bearer {old}"}).get_json()["token"]
    wait_until(lambda: status(other, old) == 401, timeout=10, what="the other process to refuse the old token")
    assert status(other, new) == 201


def _hears(client) -> bool:
    """Whether this app's token cache answers now (its subscriber hears revocations)."""
    players = client.application.extensions["truc"].players
    return players._trusted()


class Ear:
    """The part of a subscriber Revocations uses: its handlers are called by hand, as the subscriber would."""

    def __init__(self) -> None:
        self.started = 0

    def on(self, channel, wake, wanted, lost) -> None:
        self.channel, self.wake, self.wanted, self.lost = channel, wake, wanted, lost

    def start(self) -> None:
        self.started += 1


@pytest.fixture
def clock() -> list[float]:
    return [1000.0]


@pytest.fixture
def cache(clock) -> TokenCache[Player]:
    return TokenCache(ttl_seconds=TTL, clock=lambda: clock[0])


def test_the_cache_answers_only_between_a_confirmed_subscription_and_its_loss(cache, clock) -> None:
    ear = Ear()
    revocations = Revocations(cache, ear, clock=lambda: clock[0])
    assert ear.channel == keys.TOKENS_REVOKED and not ear.wanted()
    cache.put("a" * 64, Player("p1", "alice"))
    assert not revocations.trusted() and ear.started == 1  # asked: the subscriber is started
    assert ear.wanted()
    ear.wake(None)  # subscribed: what was remembered before may have been revoked unheard
    assert revocations.trusted() and len(cache) == 0 and ear.started == 1
    cache.put("b" * 64, Player("p2", "bob"))
    ear.wake("b" * 64)
    assert cache.get("b" * 64) is None and revocations.trusted()
    cache.put("c" * 64, Player("p3", "carol"))
    ear.lost()
    assert not revocations.trusted() and len(cache) == 0
    clock[0] += TTL
    assert not ear.wanted()  # nobody asked within a TTL: every entry has expired, nothing to keep true


def test_a_message_naming_no_token_forgets_everything(cache, clock) -> None:
    ear = Ear()
    revocations = Revocations(cache, ear, clock=lambda: clock[0])
    ear.wake(None)
    cache.put("d" * 64, Player("p4", "dave"))
    ear.wake("not a hash")
    assert len(cache) == 0 and revocations.trusted()


def test_a_lookup_that_raced_a_revocation_is_not_remembered(cache) -> None:
    seen = cache.generation
    cache.forget("e" * 64)  # heard while the lookup read Redis
    cache.put("e" * 64, Player("p5", "erin"), seen)
    assert cache.get("e" * 64) is None
    cache.put("e" * 64, Player("p5", "erin"), cache.generation)
    assert cache.get("e" * 64) == Player("p5", "erin")


def test_a_revocation_deletes_the_key_then_tells_every_process(fake_redis: fakeredis.FakeRedis) -> None:
    listening = fake_redis.pubsub()
    listening.subscribe(keys.TOKENS_REVOKED)
    fake_redis.set(keys.player_token("f" * 64), "p6")
    assert revoke(fake_redis, ["f" * 64]) == 1 and not fake_redis.exists(keys.player_token("f" * 64))
    heard = [listening.get_message(timeout=1) for _ in range(2)]
    assert heard[1]["data"] == ("f" * 64).encode()
    with pytest.raises(ValueError):
        revoke(fake_redis, ["secret-token-itself"])  # only hashes travel
