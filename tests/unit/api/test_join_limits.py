"""Joins are limited per player and per address, and a player sits in at most MAX_PLAYING unfinished
matches (409 TOO_MANY_MATCHES): the slot comes back when the match ends, by an action or by the timer."""
from __future__ import annotations

from services.api.timer import Timer
from services.projector.catchup.catching_up import catch_up
from services.projector.catchup.projector_context import ProjectorContext
from shared import keys
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels
from tests.unit.api.test_limits import HOUR, Api, assert_limited


def _waiting(api: Api, count: int) -> list[str]:
    """``count`` matches waiting for an opponent, each by a creator of its own."""
    return [api.create(api.player(f"host{n}")).get_json()["id"] for n in range(count)]


def _join(api: Api, headers: dict, match_id: str, address: str = "10.0.0.1"):
    """Join ``match_id``, accepting its terms (the timer tests use a 5 s clock: custom terms)."""
    return api.http.post(f"/matches/{match_id}/join", json={"accept_custom": True}, headers=headers,
                         environ_base={"REMOTE_ADDR": address})


def _events(api: Api, match_id: str) -> int:
    return len(api.app.extensions["truc"].store.read(match_id))


def test_joins_past_the_players_limit_are_refused_and_record_nothing(fake_redis) -> None:
    api = Api(fake_redis, JOINS_PER_HOUR="2", REGISTRATIONS_PER_HOUR="100")
    dave, matches = api.player("dave"), _waiting(api, 3)
    assert _join(api, dave, "nosuchmatch").status_code == 404  # an attempt counts, whatever its answer
    assert _join(api, dave, matches[0]).status_code == 200
    refused = _join(api, dave, matches[1])
    assert_limited(refused, "joins", 2)
    assert _events(api, matches[1]) == 1  # nothing recorded
    assert _join(api, api.player("erin"), matches[1]).status_code == 200  # another player is served
    api.clock.now += HOUR
    assert _join(api, dave, matches[2]).status_code == 200


def test_joins_past_the_addresss_limit_are_refused_whoever_asks(fake_redis) -> None:
    api = Api(fake_redis, CLIENT_JOINS_PER_HOUR="2", REGISTRATIONS_PER_HOUR="100")
    matches = _waiting(api, 4)
    assert [_join(api, api.player(f"p{n}"), matches[n]).status_code for n in range(2)] == [200, 200]
    assert_limited(_join(api, api.player("p2"), matches[2]), "client_joins", 2)
    assert _join(api, api.player("p3"), matches[3], address="10.0.0.9").status_code == 200


def _too_many(answer) -> None:
    assert answer.status_code == 409
    assert answer.get_json()["error"] == "TOO_MANY_MATCHES" and answer.get_json()["message"].endswith(".")


def test_a_player_sits_in_at_most_max_playing_unfinished_matches(fake_redis) -> None:
    api = Api(fake_redis, MAX_PLAYING="3", REGISTRATIONS_PER_HOUR="100")
    dave, matches = api.player("dave"), _waiting(api, 3)
    own = api.create(dave).get_json()["id"]  # waiting counts: one of dave's three
    assert [_join(api, dave, match_id).status_code for match_id in matches[:2]] == [200, 200]
    _too_many(_join(api, dave, matches[2]))
    assert _events(api, matches[2]) == 1
    _too_many(api.create(dave))
    assert api.create(dave, opponent="bot").status_code == 409  # a bot match is a match too
    assert api.http.post(f"/matches/{own}/actions", json={"type": "cancel"}, headers=dave).status_code == 200
    assert _join(api, dave, matches[2]).status_code == 200  # the cancelled match gave its slot back
    resigned = api.http.post(f"/matches/{matches[0]}/actions", json={"type": "resign"}, headers=dave)
    assert resigned.status_code == 200
    assert api.create(dave, opponent="bot").status_code == 201  # ... and so did the resigned one


def test_joining_ones_own_match_again_does_not_free_its_slot(fake_redis) -> None:
    api = Api(fake_redis, MAX_PLAYING="2", REGISTRATIONS_PER_HOUR="100")
    dave, hosted = api.player("dave"), _waiting(api, 2)
    own = api.create(dave).get_json()["id"]
    assert _join(api, dave, own).get_json()["error"] == "ALREADY_SEATED"  # refused: its slot stays held
    assert _join(api, dave, hosted[0]).status_code == 200
    assert _join(api, dave, hosted[0]).get_json()["error"] == "ALREADY_SEATED"
    _too_many(_join(api, dave, hosted[1]))
    _too_many(api.create(dave))


def test_the_cap_is_lifted_with_the_limits_and_the_bot_is_exempt(fake_redis) -> None:
    off = Api(fake_redis, MAX_PLAYING="1", RATE_LIMITS="off", REGISTRATIONS_PER_HOUR="100")
    dave = off.player("dave")
    assert [off.create(dave).status_code for _ in range(3)] == [201] * 3
    on = Api(fake_redis, MAX_PLAYING="1", REGISTRATIONS_PER_HOUR="100")
    erin = on.player("erin")
    assert on.create(erin, opponent="bot").status_code == 201
    frank = on.player("frank")
    assert on.create(frank, opponent="bot").status_code == 201  # the bot now sits in two: exempt
    assert not fake_redis.exists(keys.limit("playing", "bot"))


def test_a_slot_whose_match_ended_without_giving_it_back_frees_itself_at_the_cap(fake_redis) -> None:
    api = Api(fake_redis, MAX_PLAYING="1", REGISTRATIONS_PER_HOUR="100")
    dave = api.player("dave")
    own = api.create(dave).get_json()["id"]
    api.http.post(f"/matches/{own}/actions", json={"type": "cancel"}, headers=dave)
    player_id = api.app.extensions["truc"].players.by_token(dave["Authorization"].split()[1]).id
    fake_redis.zadd(keys.limit("playing", player_id), {own: api.clock.now + HOUR})  # as if never given back
    assert api.create(dave).status_code == 201


def test_a_match_the_timer_ends_gives_its_players_slots_back(fake_redis) -> None:
    api = Api(fake_redis, MAX_PLAYING="1", REGISTRATIONS_PER_HOUR="100")
    ctx = api.app.extensions["truc"]
    alice, bob = api.player("alice"), api.player("bob")
    match_id = api.create(alice, rules={"turn_seconds": 5}).get_json()["id"]
    assert _join(api, bob, match_id).status_code == 200
    catch_up(match_id, ProjectorContext(RedisEventStore(fake_redis, clock=api.clock), ReadModels(fake_redis)))
    _too_many(api.create(alice))
    timer = Timer(ctx.matches, ctx.read_models, 3600, clock=api.clock, ended=ctx.limits.ended)
    while ctx.store.read(match_id)[-1].type != "match_won":
        api.clock.now += 6_000
        assert timer.fire_due() == 1
    assert api.create(alice).status_code == 201 and api.create(bob, opponent="bot").status_code == 201


def test_a_waiting_match_the_lobby_expires_gives_its_creators_slot_back(fake_redis) -> None:
    api = Api(fake_redis, MAX_PLAYING="1", REGISTRATIONS_PER_HOUR="100", LOBBY_SECONDS="60")
    ctx = api.app.extensions["truc"]
    alice = api.player("alice")
    match_id = api.create(alice).get_json()["id"]
    catch_up(match_id, ProjectorContext(RedisEventStore(fake_redis, clock=api.clock), ReadModels(fake_redis)))
    _too_many(api.create(alice, opponent="bot"))
    api.clock.now += 61_000
    timer = Timer(ctx.matches, ctx.read_models, 60, clock=api.clock, ended=ctx.limits.ended)
    assert timer.fire_due() == 1
    assert api.create(alice, opponent="bot").status_code == 201
