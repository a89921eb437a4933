"""Redis round trips of a catch-up, counted as the benchmark counts them: in steady state (the
match in this worker's fold cache, both players seated) the pointer and the players' names ride
the events' read, then the views are written, then the players' feeds told: three in all."""
from __future__ import annotations

from pathlib import Path

import redis

from services.api.round_trips import RoundTripCounter, round_trips
from services.embedded_redis import EmbeddedRedis
from services.projector.catchup.catching_up import catch_up
from services.projector.catchup.projector_context import ProjectorContext
from shared.connect import connect
from shared.eventstore import RedisEventStore
from shared.readmodels.served import ReadModels
from shared.rules import Seat
from tests.integration.test_command_round_trips import CountedApi

CATCH_UP = 3  # the events' read (with the pointer and the names), the views' write, the feeds


def _projector(redis_server: EmbeddedRedis, counted: Path) -> ProjectorContext:
    client = connect(redis_server.url, count=RoundTripCounter(counted))
    return ProjectorContext(RedisEventStore(client), ReadModels(client))


def _names(redis_client: redis.Redis, match_id: str) -> list[str]:
    view = ReadModels(redis_client).view(match_id, "spectator")
    return [view["players"][seat]["name"] for seat in ("A", "B")]


def test_a_catch_up_in_steady_state_is_three_round_trips_and_names_the_players_as_they_are_now(
    redis_server: EmbeddedRedis, redis_client: redis.Redis, tmp_path: Path,
) -> None:
    api, counted = CountedApi(redis_server, tmp_path / "api"), tmp_path / "projector"
    projector = _projector(redis_server, counted)
    _, match_id = api.create()
    api.join(match_id)
    catch_up(match_id, projector)  # the join folded here: its player named after the read
    assert _names(redis_client, match_id) == ["countedA", "countedB"]
    for renamed in ("renamedA", "againA"):
        assert api.http.patch("/players/me", json={"name": renamed},
                              headers={"Authorization": f"Bearer {api.tokens[Seat.A]}"}).status_code == 200
        api.play_a_card(match_id)
        before = round_trips(counted)
        catch_up(match_id, projector)
        assert round_trips(counted) - before == CATCH_UP
        assert _names(redis_client, match_id) == [renamed, "countedB"]  # read along, as it is now
