"""Redis round trips of the command path, counted as the benchmark counts them
(``services/api/round_trips.py``, ``RATE_LIMITS=off``): a later change that adds one fails here.

Issue 26's budget: an action one round trip in the common case, a create or a join at most two.
The counts are taken once the process is warm (its connections open, the players' tokens
known, the catch-up lane armed), as in the benchmark's windows. No projector runs: a test
clears a match's catch-up flag where the projector's read would have.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import redis

from services.api import create_app
from services.api.round_trips import RoundTripCounter, round_trips
from services.embedded_redis import EmbeddedRedis
from shared import keys
from shared.config import Config
from shared.connect import connect
from shared.rules import PlayCard, Seat, legal_actions
from tests.waiting import wait_until

# The seed written and the view's names read in the append's round trip, and the catch-up
# request sent after it there (it files the match only if the append asked for a catch-up).
CREATE = 1
JOIN = 1
ACTION = 1


QUEUE = Config.from_env({}).queue_name  # its lanes' keys (one lane: CATCH_UP_LANES=1)


class CountedApi:
    """The API on a counted connection to a real Redis, as one benchmark process."""

    def __init__(self, redis_server: EmbeddedRedis, data: Path) -> None:
        self.data = data
        config = Config.from_env({"REDIS_URL": redis_server.url, "DATA_DIR": str(data), "RATE_LIMITS": "off",
                                  "METRICS": "off", "CATCH_UP_LANES": "1"})
        client = connect(redis_server.url, max_connections=8, count=RoundTripCounter(data))
        self.app = create_app(config, redis_client=client)
        self.http = self.app.test_client()
        self.tokens = {seat: self._register(f"counted{seat.value}") for seat in Seat}

    def trips(self, method: str, path: str, seat: Seat, body: Any = None, status: int = 200) -> tuple[int, Any]:
        """The round trips of one request, and its answer's body."""
        before = round_trips(self.data)
        answer = self.http.open(path, method=method, json=body or {},
                                headers={"Authorization": f"Bearer {self.tokens[seat]}"})
        assert answer.status_code == status, answer.get_json()
        return round_trips(self.data) - before, answer.get_json()

    def create(self, body: Any = None) -> tuple[int, str]:
        trips, view = self.trips("POST", "/matches", Seat.A, body, 201)
        return trips, view["id"]

    def join(self, match_id: str, body: Any = None) -> int:
        return self.trips("POST", f"/matches/{match_id}/join", Seat.B, body)[0]

    def play_a_card(self, match_id: str) -> int:
        """The round trips of one card played, chosen on this process's own fold (no read)."""
        state = self.app.extensions["truc"].matches.folds.get(match_id).state
        seat, card = next((seat, action) for seat in Seat for action in legal_actions(state, seat)
                          if isinstance(action, PlayCard))
        return self.trips("POST", f"/matches/{match_id}/actions", seat, card.body())[0]

    def _register(self, name: str) -> str:
        answer = self.http.post("/players", json={"name": name})
        assert answer.status_code == 201
        return answer.get_json()["token"]


@pytest.fixture
def api(redis_server: EmbeddedRedis, redis_client: redis.Redis, tmp_path: Path) -> CountedApi:
    counted = CountedApi(redis_server, tmp_path)
    trusted = counted.app.extensions["truc"].players._trusted
    wait_until(trusted)  # the revocations heard: known tokens are trusted, as in a running process
    _, match_id = counted.create()  # warm: connections opened, tokens known
    counted.join(match_id)
    return counted


def test_a_create_and_a_join_cost_what_the_budget_says(api: CountedApi) -> None:
    trips, match_id = api.create()
    assert trips == CREATE
    assert api.join(match_id) == JOIN


def test_a_join_after_the_projector_read_the_match_asks_for_its_catch_up(
    api: CountedApi, redis_client: redis.Redis,
) -> None:
    _, match_id = api.create()
    redis_client.delete(keys.match_catch_up(match_id))  # as the projector's read of the new match does
    assert api.join(match_id) == JOIN
    assert redis_client.sismember(keys.lane_pending(QUEUE, 0), match_id)  # filed for its catch-up


def test_a_private_match_is_created_and_joined_by_its_invite_within_the_budget(api: CountedApi) -> None:
    trips, view = api.trips("POST", "/matches", Seat.A, {"private": True}, 201)
    assert trips == CREATE
    assert api.join(view["id"], {"invite": view["invite"]}) == JOIN


def test_an_ordinary_action_is_one_round_trip(api: CountedApi) -> None:
    _, match_id = api.create()
    api.join(match_id)
    assert [api.play_a_card(match_id) for _ in range(3)] == [ACTION] * 3


def test_an_action_whose_append_asks_for_a_catch_up_files_it_in_the_same_round_trip(
    api: CountedApi, redis_client: redis.Redis,
) -> None:
    _, match_id = api.create()
    api.join(match_id)
    redis_client.delete(keys.match_catch_up(match_id), keys.lane_pending(QUEUE, 0))  # read and drained
    assert api.play_a_card(match_id) == ACTION
    assert redis_client.sismember(keys.lane_pending(QUEUE, 0), match_id)
    redis_client.srem(keys.lane_pending(QUEUE, 0), match_id)
    assert api.play_a_card(match_id) == ACTION  # not asked: the catch-up asked for will fold it too
    assert not redis_client.sismember(keys.lane_pending(QUEUE, 0), match_id)


def test_a_catch_up_request_refused_in_the_append_s_round_trip_is_sent_on_its_own(
    api: CountedApi, redis_client: redis.Redis,
) -> None:
    _, match_id = api.create()
    api.join(match_id)
    redis_client.delete(keys.match_catch_up(match_id), keys.lane_pending(QUEUE, 0))
    redis_client.script_flush()  # the request's script is gone: NOSCRIPT in the append's round trip
    assert api.play_a_card(match_id) > ACTION
    assert redis_client.sismember(keys.lane_pending(QUEUE, 0), match_id)


def test_a_new_match_is_stored_with_its_seed_even_when_redis_lost_its_scripts(
    api: CountedApi, redis_client: redis.Redis,
) -> None:
    redis_client.script_flush()  # the append's transaction meets NOSCRIPT: sent again, seed and all
    _, match_id = api.create()
    assert redis_client.xlen(keys.match_events(match_id)) >= 1
    assert len(redis_client.get(keys.match_seed(match_id))) == 64
    assert api.join(match_id) >= 1  # dealt from the seed the append stored


def test_the_view_of_a_join_names_both_players_from_the_append_s_round_trip(api: CountedApi) -> None:
    _, match_id = api.create()
    trips, view = api.trips("POST", f"/matches/{match_id}/join", Seat.B)
    assert trips == JOIN
    assert {seat: player["name"] for seat, player in view["players"].items()} == {"A": "countedA", "B": "countedB"}
