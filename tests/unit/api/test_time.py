"""R28-R32 on the command side: resign and cancel over HTTP, the timer's use cases time_out and expire."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from services.api.app import expire, latest, time_out
from services.api.app import timeouts as clock_use_cases
from services.api.app.application_errors import MatchNotFoundError
from shared.config import Config
from shared.rules import RuleCode, RuleError, Seat, deadline
from tests.unit.api.support import fake_app

T0 = 1_700_000_000_000  # when the tests' matches are created (epoch ms)
MINUTE = 60_000
HOUR_S = 3_600


@dataclass
class FakeClock:
    """The time the store gives each append; moves only when a test says so."""

    now: int = T0

    def __call__(self) -> int:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def app(fake_redis, clock):
    return fake_app(fake_redis, clock=clock)


@pytest.fixture
def http(app):
    return app.test_client()


@pytest.fixture
def matches(app):
    return app.extensions["truc"].matches


def _auth(http, name: str) -> dict:
    token = http.post("/players", json={"name": name}).get_json()["token"]
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def alice(http) -> dict:
    return _auth(http, "alice")


@pytest.fixture
def bob(http) -> dict:
    return _auth(http, "bob")


def _created(http, player: dict, **options) -> dict:
    return http.post("/matches", json={"first_dealer": "B", **options}, headers=player).get_json()  # A leads


def _started(http, alice: dict, bob: dict) -> str:
    match_id = _created(http, alice)["id"]
    http.post(f"/matches/{match_id}/join", headers=bob)
    return match_id


def _act(http, match_id: str, player: dict, kind: str):
    return http.post(f"/matches/{match_id}/actions", json={"type": kind}, headers=player)


def _events(http, match_id: str) -> list[dict]:
    return http.get(f"/matches/{match_id}/events").get_json()["events"]


def _refused(call, *args) -> RuleCode:
    with pytest.raises(RuleError) as refused:
        call(*args)
    return refused.value.code


# --- The clock in the views ----------------------------------------------------------------


def test_a_match_says_who_owes_by_when_and_takes_turn_seconds_as_a_rule(http, alice, bob):
    created = _created(http, alice, rules={"turn_seconds": 30})
    assert created["rules"]["turn_seconds"] == 30 and created["clock"] is None and created["ended_by"] is None
    assert created["legal_actions"] == [{"type": "cancel"}]
    joined = http.post(f"/matches/{created['id']}/join", headers=bob).get_json()
    assert joined["clock"] == {"seat": "A", "deadline": "2023-11-14T22:13:50.000Z", "turn_seconds": 30}
    assert {"type": "resign"} in joined["legal_actions"] and {"type": "cancel"} not in joined["legal_actions"]
    refused = http.post("/matches", json={"rules": {"turn_seconds": 4}}, headers=alice)
    assert refused.status_code == 400 and "turn_seconds" in refused.get_json()["fields"]["rules"]


# --- R31: resign ---------------------------------------------------------------------------


def test_a_player_resigns_even_off_turn_and_the_opponent_wins_with_the_scores_as_they_stood(http, alice, bob):
    match_id = _started(http, alice, bob)

    resigned = _act(http, match_id, bob, "resign")  # A is on turn

    assert resigned.status_code == 200
    [won] = resigned.get_json()["events"]
    assert won["type"] == "match_won" and won["data"]["seat"] == "A" and won["data"]["reason"] == "resigned"
    assert won["data"]["scores"] == {"A": 0, "B": 0} and won["data"]["seed"]
    assert _act(http, match_id, alice, "fold").get_json()["error"] == "MATCH_OVER"
    assert _act(http, match_id, alice, "resign").get_json()["error"] == "MATCH_OVER"


def test_resign_is_refused_while_the_match_waits_and_to_a_stranger(http, alice, bob):
    match_id = _created(http, alice)["id"]
    waiting = _act(http, match_id, alice, "resign")
    assert waiting.status_code == 409 and waiting.get_json()["error"] == "NOT_STARTED"
    assert _act(http, match_id, bob, "resign").status_code == 403


# --- R32: cancel -----------------------------------------------------------------------------


def test_the_creator_cancels_a_waiting_match_and_nobody_can_join_or_act_in_it(http, alice, bob):
    match_id = _created(http, alice)["id"]

    cancelled = _act(http, match_id, alice, "cancel")

    assert cancelled.status_code == 200
    assert [(e["type"], e["data"]) for e in cancelled.get_json()["events"]] == [
        ("match_cancelled", {"reason": "creator"}),
    ]
    joining = http.post(f"/matches/{match_id}/join", headers=bob)
    assert joining.status_code == 409 and joining.get_json()["error"] == "MATCH_OVER"
    assert _act(http, match_id, alice, "cancel").get_json()["error"] == "MATCH_OVER"
    assert http.get("/matches?status=cancelled").status_code == 200


def test_a_cancel_by_anyone_but_the_creator_is_not_a_players(http, alice, bob):
    match_id = _created(http, alice)["id"]
    stranger = _act(http, match_id, bob, "cancel")
    assert stranger.status_code == 403 and stranger.get_json()["error"] == "NOT_A_PLAYER"
    http.post(f"/matches/{match_id}/join", headers=bob)
    seated = _act(http, match_id, bob, "cancel")
    assert seated.status_code == 403 and seated.get_json()["error"] == "NOT_A_PLAYER"


def test_the_creator_cannot_cancel_once_the_second_player_joined(http, alice, bob):
    match_id = _started(http, alice, bob)
    refused = _act(http, match_id, alice, "cancel")
    assert refused.status_code == 409 and refused.get_json()["error"] == "MATCH_STARTED"
    assert [e["type"] for e in _events(http, match_id)][-1] == "round_dealt"


def test_a_cancel_with_a_card_is_an_invalid_request(http, alice):
    match_id = _created(http, alice)["id"]
    body = {"type": "cancel", "card": "7H"}
    assert http.post(f"/matches/{match_id}/actions", json=body, headers=alice).status_code == 400


# --- R29-R30: the timer's time_out -------------------------------------------------------------


def test_a_timeout_before_the_deadline_is_not_due_and_records_nothing(http, matches, alice, bob):
    match_id = _started(http, alice, bob)
    assert deadline(latest(matches, match_id).state) == T0 + MINUTE
    assert _refused(time_out, matches, match_id, T0 + MINUTE - 1) is RuleCode.NOT_DUE
    assert _refused(time_out, matches, match_id, T0 + MINUTE, Seat.B) is RuleCode.NOT_DUE  # B owes nothing
    assert len(_events(http, match_id)) == 3


def test_a_due_timeout_records_the_seats_default_decision_with_its_consequences(http, matches, clock, alice, bob):
    match_id = _started(http, alice, bob)
    clock.now = T0 + MINUTE + 250  # the timer runs a little late

    recorded = time_out(matches, match_id, clock.now)

    assert recorded.seat is None and recorded.version == 7
    stored = _events(http, match_id)[3:]
    assert [e["type"] for e in stored] == ["turn_timed_out", "folded", "round_won", "round_dealt"]
    assert stored[0]["data"] == {"seat": "A", "deadline": T0 + MINUTE}
    assert stored[2]["data"]["reason"] == "fold" and stored[2]["data"]["scores"] == {"A": 0, "B": 1}
    # Repeated (two timers, or a retry): the next deadline runs from the new round's deal.
    assert _refused(time_out, matches, match_id, clock.now) is RuleCode.NOT_DUE


def test_a_move_that_lands_first_wins_and_the_timeout_is_refused(http, matches, clock, alice, bob, monkeypatch):
    match_id = _started(http, alice, bob)
    clock.now = T0 + MINUTE + 500  # A's deadline passed; A raises just as the timer decides
    step = clock_use_cases.step

    def racing_step(state, command, chance=None, at_ms=None):
        stepped = step(state, command, chance, at_ms)
        if state.round.pending is None:
            assert _act(http, match_id, alice, "raise").status_code == 200
        return stepped

    monkeypatch.setattr(clock_use_cases, "step", racing_step)

    assert _refused(time_out, matches, match_id, clock.now) is RuleCode.NOT_DUE  # B owes now, for a minute
    assert [e["type"] for e in _events(http, match_id)][3:] == ["raise_proposed"]


def test_a_seat_that_times_out_twice_in_a_row_abandons_the_match(http, matches, clock, alice, bob):
    match_id = _started(http, alice, bob)
    clock.now = T0 + MINUTE
    time_out(matches, match_id, clock.now)  # A's first: A folds round 1 (0-1); round 2: B leads
    assert _act(http, match_id, bob, "raise").status_code == 200
    clock.now += 10_000
    assert _act(http, match_id, alice, "accept").status_code == 200  # an action of A's own
    clock.now += MINUTE
    time_out(matches, match_id, clock.now)  # B's first: B owes a card and folds (2-1); round 3: A leads
    clock.now += MINUTE
    time_out(matches, match_id, clock.now)  # A again, but it acted since: an ordinary fold (2-2)
    clock.now += MINUTE

    recorded = time_out(matches, match_id, clock.now)  # round 4: B leads, and times out again

    assert [e.type for e in recorded.events] == ["turn_timed_out", "match_won"]
    won = recorded.events[-1].data
    assert won["reason"] == "abandoned" and won["seat"] == "A" and won["scores"] == {"A": 2, "B": 2}
    assert _refused(time_out, matches, match_id, clock.now + MINUTE) is RuleCode.MATCH_OVER


def test_a_timeout_of_an_unknown_or_waiting_match_is_refused(http, matches, alice):
    with pytest.raises(MatchNotFoundError):
        time_out(matches, "NoSuchMatch", T0)
    match_id = _created(http, alice)["id"]
    assert _refused(time_out, matches, match_id, T0 + HOUR_S * 1000) is RuleCode.NOT_STARTED


# --- R32: the timer's expire ---------------------------------------------------------------------


def test_a_match_nobody_joined_expires_after_lobby_seconds(http, matches, alice, bob):
    match_id = _created(http, alice)["id"]
    assert _refused(expire, matches, match_id, T0 + HOUR_S * 1000 - 1, HOUR_S) is RuleCode.NOT_DUE

    recorded = expire(matches, match_id, T0 + HOUR_S * 1000, HOUR_S)

    assert [(e.type, e.data) for e in recorded.events] == [("match_cancelled", {"reason": "expired"})]
    assert recorded.state.status.value == "cancelled"
    assert http.post(f"/matches/{match_id}/join", headers=bob).get_json()["error"] == "MATCH_OVER"
    assert _refused(expire, matches, match_id, T0 + 2 * HOUR_S * 1000, HOUR_S) is RuleCode.MATCH_OVER


def test_a_match_someone_joined_never_expires(http, matches, alice, bob):
    match_id = _started(http, alice, bob)
    assert _refused(expire, matches, match_id, T0 + 9 * HOUR_S * 1000, HOUR_S) is RuleCode.MATCH_STARTED


def test_lobby_seconds_is_a_setting_an_hour_by_default():
    assert Config.from_env({"REDIS_URL": "redis://x"}).lobby_seconds == 3600
    assert Config.from_env({"REDIS_URL": "redis://x", "LOBBY_SECONDS": "600"}).lobby_seconds == 600
