"""The timer fires what falls due from the clock index and the waiting lobby, through the use cases."""
from __future__ import annotations

import pytest

from services.api.app import latest
from services.api.timer import Timer
from services.projector.catchup.catching_up import catch_up
from services.projector.catchup.projector_context import ProjectorContext
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels
from shared.readmodels.clocks import Clocks
from shared.rules import Status, owes
from tests.unit.api.support import fake_app
from tests.unit.api.test_time import T0, FakeClock

SECOND = 1000


@pytest.fixture
def setup(fake_redis):
    clock = FakeClock()
    app = fake_app(fake_redis, clock=clock)
    ctx = app.extensions["truc"]
    projector = ProjectorContext(RedisEventStore(fake_redis, clock=clock), ReadModels(fake_redis))
    return app.test_client(), ctx, projector, clock, Timer(ctx.matches, ctx.read_models, 3600, clock=clock)


def _auth(http, name: str) -> dict:
    return {"Authorization": f"Bearer {http.post('/players', json={'name': name}).get_json()['token']}"}


def _playing(http, projector, turn_seconds: int = 5) -> tuple[str, dict]:
    """A playing match, its clock indexed; and each seat's auth headers."""
    seats = {"A": _auth(http, "alice"), "B": _auth(http, "bob")}
    body = {"rules": {"turn_seconds": turn_seconds}}
    match_id = http.post("/matches", json=body, headers=seats["A"]).get_json()["id"]
    http.post(f"/matches/{match_id}/join", json={"accept_custom": turn_seconds < 15}, headers=seats["B"])
    catch_up(match_id, projector)  # the projector indexes its clock
    return match_id, seats


def _types(ctx, match_id: str) -> list[str]:
    return [stored.type for stored in ctx.store.read(match_id)]


def test_nothing_fires_before_the_deadline_and_the_timeout_fires_at_it(setup) -> None:
    http, ctx, projector, clock, timer = setup
    match_id, _ = _playing(http, projector)
    clock.now = T0 + 5 * SECOND - 1
    assert timer.fire_due() == 0 and "turn_timed_out" not in _types(ctx, match_id)
    clock.now = T0 + 5 * SECOND
    assert timer.fire_due() == 1
    assert "turn_timed_out" in _types(ctx, match_id)
    assert Clocks(ctx.redis).due(clock.now) == []  # indexed at the next deadline at once


def test_a_match_left_alone_ends_by_abandonment(setup) -> None:
    http, ctx, projector, clock, timer = setup
    match_id, _ = _playing(http, projector)
    for _ in range(10):
        clock.now += 5 * SECOND
        timer.fire_due()
    state = latest(ctx.matches, match_id).state
    assert state.status is Status.FINISHED and state.ended_by.value == "abandoned"
    assert Clocks(ctx.redis).running() == 0


def test_a_move_that_lands_first_wins_and_the_stale_entry_is_set_again(setup) -> None:
    http, ctx, projector, clock, timer = setup
    match_id, seats = _playing(http, projector)
    seat = owes(latest(ctx.matches, match_id).state).value
    clock.now = T0 + 4 * SECOND
    view = http.get(f"/matches/{match_id}", headers=seats[seat]).get_json()
    move = next(action for action in view["legal_actions"] if action["type"] == "play")
    assert http.post(f"/matches/{match_id}/actions", json=move, headers=seats[seat]).status_code == 200
    clock.now = T0 + 5 * SECOND  # the index still says T0 + 5 s: the timer looks, and finds nothing due
    assert timer.fire_due() == 0 and "turn_timed_out" not in _types(ctx, match_id)
    assert Clocks(ctx.redis).next_deadline() == T0 + 9 * SECOND


def test_an_unjoined_match_expires_from_the_lobby(setup) -> None:
    http, ctx, projector, clock, timer = setup
    match_id = http.post("/matches", json={}, headers=_auth(http, "carol")).get_json()["id"]
    catch_up(match_id, projector)  # listed as waiting
    clock.now = T0 + 3600 * SECOND - 1
    assert timer.fire_due() == 0
    clock.now = T0 + 3600 * SECOND
    assert timer.fire_due() == 1 and _types(ctx, match_id)[-1] == "match_cancelled"
