"""Abuse limits over the API: each answers 429 RATE_LIMITED with its headers, names itself,
and the limited request records nothing; per address and per player apart."""
from __future__ import annotations

import pytest

from shared import keys
from shared.config import Config, LimitSettings
from tests.unit.api.support import fake_app

START = 1_700_000_000_000
HOUR = 3_600_000
BOT_TOKEN = "a-bot-secret-of-at-least-32-characters-0123"


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> int:
        return self.now


class Api:
    """The app on fakeredis with a clock the test moves, and helpers to call it from an address."""

    def __init__(self, client, **env: str) -> None:
        self.clock, self.redis = Clock(), client
        self.app = fake_app(client, {"BOT_TOKEN": BOT_TOKEN, **env}, clock=self.clock)
        self.http = self.app.test_client()

    def register(self, name: str, address: str = "10.0.0.1", **headers: str):
        return self.http.post("/players", json={"name": name}, headers=headers,
                              environ_base={"REMOTE_ADDR": address})

    def player(self, name: str, address: str = "10.0.0.1") -> dict:
        return {"Authorization": f"Bearer {self.register(name, address).get_json()['token']}"}

    def create(self, headers: dict, **options):
        return self.http.post("/matches", json=options, headers=headers)

    def matches(self) -> int:
        return len(list(self.redis.scan_iter(match=keys.MATCH_EVENTS_PATTERN)))


def assert_limited(answer, limit: str, count: int) -> None:
    assert answer.status_code == 429
    body = answer.get_json()
    assert body["error"] == "RATE_LIMITED" and body["limit"] == limit and body["message"].endswith(".")
    assert answer.headers["RateLimit-Limit"] == str(count) and answer.headers["RateLimit-Remaining"] == "0"
    assert int(answer.headers["Retry-After"]) == int(answer.headers["RateLimit-Reset"]) >= 1


def test_registrations_past_the_limit_are_refused_and_register_nobody(fake_redis) -> None:
    api = Api(fake_redis, REGISTRATIONS_PER_HOUR="3")
    served = [api.register(f"p{n}") for n in range(3)]
    assert [answer.status_code for answer in served] == [201] * 3
    assert [answer.headers["RateLimit-Remaining"] for answer in served] == ["2", "1", "0"]
    refused = api.register("dave")
    assert_limited(refused, "registrations", 3)
    assert refused.headers["Retry-After"] == "3600"
    assert "try again in 60 minutes" in refused.get_json()["message"]
    assert not fake_redis.exists(keys.player_name("dave"))
    api.clock.now += HOUR
    assert api.register("dave").status_code == 201


def test_a_registration_that_fails_costs_nothing(fake_redis) -> None:
    api = Api(fake_redis, REGISTRATIONS_PER_HOUR="2")
    api.register("alice")
    assert [api.register("alice").status_code for _ in range(5)] == [409] * 5
    assert api.register("bob").status_code == 201


def test_another_address_is_still_served(fake_redis) -> None:
    api = Api(fake_redis, REGISTRATIONS_PER_HOUR="1")
    api.register("alice", "10.0.0.1")
    assert api.register("bob", "10.0.0.1").status_code == 429
    assert api.register("bob", "10.0.0.2").status_code == 201
    assert api.register("carol", "2001:db8:1:2::1").status_code == 201
    assert api.register("dave", "2001:db8:1:2::99").status_code == 429  # one /64 is one client


def test_x_forwarded_for_counts_only_from_a_trusted_proxy(fake_redis) -> None:
    api = Api(fake_redis, REGISTRATIONS_PER_HOUR="1", TRUSTED_PROXIES="10.9.0.0/16, 192.0.2.7")
    for n in range(3):  # through the proxy: each forwarded address is a client of its own
        assert api.register(f"p{n}", "10.9.0.1", **{"X-Forwarded-For": f"203.0.113.{n}"}).status_code == 201
    # a chain of trusted proxies: the entry the first of them added; what the client wrote is not believed
    forged = {"X-Forwarded-For": "203.0.113.0, 198.51.100.1, 192.0.2.7"}
    assert api.register("q1", "10.9.0.1", **forged).status_code == 201
    assert api.register("q2", "10.9.0.1", **{"X-Forwarded-For": "203.0.113.9, 198.51.100.1"}).status_code == 429
    for n in range(3):  # straight from an untrusted peer the header changes nothing
        answer = api.register(f"r{n}", "10.0.0.5", **{"X-Forwarded-For": f"203.0.113.{50 + n}"})
        assert answer.status_code == (201 if n == 0 else 429)


def test_matches_created_past_the_limit_are_refused_and_record_nothing(fake_redis) -> None:
    api = Api(fake_redis, MATCHES_PER_HOUR="2", WAITING_MATCHES="10")
    alice, bob = api.player("alice"), api.player("bob")
    assert [api.create(alice).status_code for _ in range(2)] == [201, 201]
    refused = api.create(alice)
    assert_limited(refused, "matches", 2)
    assert api.matches() == 2
    assert api.create(bob).status_code == 201  # per player
    api.clock.now += HOUR
    assert api.create(alice).status_code == 201


def test_a_match_the_rules_refuse_costs_nothing(fake_redis) -> None:
    api = Api(fake_redis, MATCHES_PER_HOUR="1")
    alice = api.player("alice")
    assert api.create(alice, start_scores=[40, 0]).status_code == 400
    assert api.create(alice).status_code == 201


def test_waiting_matches_past_the_limit_are_refused_until_one_is_joined_or_cancelled(fake_redis) -> None:
    api = Api(fake_redis, WAITING_MATCHES="2")
    alice, bob = api.player("alice"), api.player("bob")
    first, second = (api.create(alice).get_json()["id"] for _ in range(2))
    refused = api.create(alice)
    assert_limited(refused, "waiting_matches", 2)
    assert "cancel one" in refused.get_json()["message"] and api.matches() == 2
    assert api.create(alice, opponent="bot").status_code == 201  # a match with the bot never waits
    assert api.http.post(f"/matches/{first}/join", headers=bob).status_code == 200
    assert api.create(alice).status_code == 201
    assert api.create(alice).status_code == 429
    assert api.http.post(f"/matches/{second}/actions", json={"type": "cancel"}, headers=alice).status_code == 200
    assert api.create(alice).status_code == 201


def test_a_waiting_match_stops_counting_once_the_lobby_would_expire_it(fake_redis) -> None:
    api = Api(fake_redis, WAITING_MATCHES="1", LOBBY_SECONDS="600")
    alice = api.player("alice")
    api.create(alice)
    assert api.create(alice).status_code == 429
    api.clock.now += 600_000
    assert api.create(alice).status_code == 201


def test_actions_past_the_pace_are_refused_and_record_nothing(fake_redis) -> None:
    api = Api(fake_redis, ACTIONS_PER_SECOND="1", ACTIONS_BURST="2")
    alice, bob = api.player("alice"), api.player("bob")
    match_id = api.create(alice, first_dealer="A").get_json()["id"]
    api.http.post(f"/matches/{match_id}/join", headers=bob)
    actions = f"/matches/{match_id}/actions"
    assert api.http.post(actions, json={"type": "raise"}, headers=bob).status_code == 200
    assert api.http.post(actions, json={"type": "raise"}, headers=bob).status_code == 409  # counted all the same
    before = fake_redis.xlen(keys.match_events(match_id))
    refused = api.http.post(actions, json={"type": "fold"}, headers=bob)
    assert_limited(refused, "actions", 2)
    assert refused.headers["Retry-After"] == "2" and "too fast" in refused.get_json()["message"]
    assert fake_redis.xlen(keys.match_events(match_id)) == before
    assert api.http.post(actions, json={"type": "accept"}, headers=alice).status_code == 200  # per player
    api.clock.now += 2000
    assert api.http.post(actions, json={"type": "fold"}, headers=bob).status_code == 200


def test_streams_open_at_once_are_limited_per_address_and_given_back_when_closed(fake_redis) -> None:
    api = Api(fake_redis, STREAMS_PER_CLIENT="2", MAX_STREAMS="10")
    alice = api.player("alice")
    match_id = api.create(alice).get_json()["id"]
    player_id = api.http.get(f"/matches/{match_id}").get_json()["players"]["A"]["id"]
    first = api.http.get(f"/matches/{match_id}/stream", buffered=False)
    second = api.http.get(f"/players/{player_id}/stream", headers=alice, buffered=False)  # a player's counts too
    assert (first.status_code, second.status_code) == (200, 200)
    assert second.headers["RateLimit-Remaining"] == "0"
    refused = api.http.get(f"/matches/{match_id}/stream")
    assert_limited(refused, "streams", 2)
    other = api.http.get(f"/matches/{match_id}/stream", buffered=False, environ_base={"REMOTE_ADDR": "10.0.0.2"})
    assert other.status_code == 200
    first.close()
    again = api.http.get(f"/matches/{match_id}/stream", buffered=False)
    assert again.status_code == 200
    for response in (second, other, again):
        response.close()
    assert api.app.extensions["truc"].streams.open == 0
    assert fake_redis.zcard(keys.limit("streams", "127.0.0.1")) == 0


def test_a_stream_its_process_never_closed_stops_counting_once_its_lease_lapses(fake_redis) -> None:
    api = Api(fake_redis, STREAMS_PER_CLIENT="1", MAX_STREAMS="10")
    match_id = api.create(api.player("alice")).get_json()["id"]
    api.http.get(f"/matches/{match_id}/stream", buffered=False)  # its process dies: never closed, never renewed
    assert api.http.get(f"/matches/{match_id}/stream").status_code == 429
    api.clock.now += 60_000
    opened = api.http.get(f"/matches/{match_id}/stream", buffered=False)
    assert opened.status_code == 200
    opened.close()


def test_a_stream_renews_its_lease_while_it_sends(fake_redis, monkeypatch) -> None:
    from services.api import abuse_limits
    monkeypatch.setattr(abuse_limits, "RENEW_EVERY_SECONDS", 0)
    api = Api(fake_redis, STREAMS_PER_CLIENT="1", MAX_STREAMS="10")
    match_id = api.create(api.player("alice")).get_json()["id"]
    opened = api.http.get(f"/matches/{match_id}/stream", buffered=False)
    chunks = iter(opened.response)
    next(chunks)
    api.clock.now += 50_000
    api.http.post(f"/matches/{match_id}/join", headers=api.player("bob"))  # a change: the stream sends again
    next(chunks)
    api.clock.now += 50_000  # past the first lease, not the renewed one
    assert api.http.get(f"/matches/{match_id}/stream").status_code == 429
    opened.close()


def test_the_bot_is_exempt_from_the_per_player_limits(fake_redis) -> None:
    api = Api(fake_redis, ACTIONS_PER_SECOND="1", ACTIONS_BURST="1")
    limiter = api.app.extensions["truc"].limits
    with api.app.test_request_context():
        for _ in range(5):
            limiter.act("bot")
    assert not list(fake_redis.scan_iter(match="truc:limit:*"))


def test_rate_limits_off_limits_nothing_and_counts_nothing(fake_redis) -> None:
    api = Api(fake_redis, RATE_LIMITS="off", REGISTRATIONS_PER_HOUR="1", MATCHES_PER_HOUR="1", WAITING_MATCHES="1")
    headers = [api.player(f"p{n}") for n in range(5)]
    assert [api.create(headers[0]).status_code for _ in range(5)] == [201] * 5
    answer = api.register("q")
    assert answer.status_code == 201 and "RateLimit-Limit" not in answer.headers
    assert not list(fake_redis.scan_iter(match="truc:limit:*"))


def test_the_defaults_suit_a_public_server_and_each_has_its_setting() -> None:
    assert Config.from_env({"REDIS_URL": "redis://x"}).limits == LimitSettings(
        enabled=True, registrations_per_hour=10, streams_per_client=20, matches_per_hour=30, waiting_matches=5,
        actions_per_second=10.0, actions_burst=20)
    env = {"REDIS_URL": "redis://x", "REGISTRATIONS_PER_HOUR": "1", "STREAMS_PER_CLIENT": "2", "MATCHES_PER_HOUR": "3",
           "WAITING_MATCHES": "4", "ACTIONS_PER_SECOND": "0.5", "ACTIONS_BURST": "6", "RATE_LIMITS": "OFF"}
    assert Config.from_env(env).limits == LimitSettings(False, 1, 2, 3, 4, 0.5, 6)
    assert Config.from_env({"REDIS_URL": "redis://x"}).trusted_proxies == ()


def test_a_malformed_trusted_proxy_stops_the_start() -> None:
    with pytest.raises(ValueError):
        Config.from_env({"REDIS_URL": "redis://x", "TRUSTED_PROXIES": "10.0.0.1, not-an-address"})
