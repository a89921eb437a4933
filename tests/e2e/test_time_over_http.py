"""Clocks on the running stack: a match left alone is abandoned and counted once; a killed timer
loses no timeout; a cancelled match leaves the lobby and the scoreboard alone."""
from __future__ import annotations

import signal
import time

from .table import register


def _wait_for(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.25)
    raise AssertionError(f"not within {timeout:.0f} s: {what}")


def _left_alone(stack, turn_seconds: int = 5) -> tuple[str, object, object]:
    a, b = register(stack, "idle-a"), register(stack, "idle-b")
    created = stack.http.post("/matches", {"rules": {"turn_seconds": turn_seconds}}, token=a.token)
    assert created.status == 201, created.body
    # A clock under 15 s is custom terms: joined by consent, never ranked.
    joined = stack.http.post(f"/matches/{created.body['id']}/join", {"accept_custom": turn_seconds < 15},
                             token=b.token)
    assert joined.status == 200, joined.body
    return created.body["id"], a, b


def _events(stack, match_id: str) -> list[dict]:
    return stack.http.get(f"/matches/{match_id}/events?limit=1000").body["events"]


def test_a_match_left_alone_is_abandoned_and_counted_once(stack) -> None:
    match_id, a, b = _left_alone(stack, turn_seconds=15)  # the shortest clock a ranked match has
    ended = _wait_for(lambda: (view := stack.http.get(f"/matches/{match_id}").body)["status"] == "finished" and view,
                      60, "the match ends by abandonment")
    assert ended["ended_by"] == "abandoned" and ended["clock"] is None
    types = [event["type"] for event in _events(stack, match_id)]
    assert types.count("turn_timed_out") >= 2 and types[-1] == "match_won"
    rows = _wait_for(lambda: all(stack.http.get(f"/players/{p.id}").body["matches_played"] == 1 for p in (a, b)),
                     20, "both players' rows count the match")
    assert rows


def test_a_killed_timer_loses_no_timeout(stack) -> None:
    for timer in stack.timers:
        timer.send_signal(signal.SIGKILL)
        timer.wait(10)
    stack.timers.clear()
    matches = [_left_alone(stack)[0] for _ in range(3)]
    time.sleep(6)  # every deadline passes with no timer running
    assert all("turn_timed_out" not in [e["type"] for e in _events(stack, m)] for m in matches)
    stack.start_timer()
    for match_id in matches:
        _wait_for(lambda match_id=match_id: "turn_timed_out" in [e["type"] for e in _events(stack, match_id)],
                  20, f"the timeout of {match_id} fires once a timer runs again")


def test_a_cancelled_match_leaves_the_lobby_and_the_scoreboard_alone(stack) -> None:
    creator = register(stack, "canceller")
    match_id = stack.http.post("/matches", {}, token=creator.token).body["id"]
    _wait_for(lambda: match_id in [m["id"] for m in stack.http.get("/matches?status=waiting").body["matches"]],
              20, "the match is in the waiting lobby")
    cancelled = stack.http.post(f"/matches/{match_id}/actions", {"type": "cancel"}, token=creator.token)
    assert cancelled.status == 200, cancelled.body
    _wait_for(lambda: match_id in [m["id"] for m in stack.http.get("/matches?status=cancelled").body["matches"]],
              20, "the match is listed as cancelled")
    assert match_id not in [m["id"] for m in stack.http.get("/matches?status=waiting").body["matches"]]
    assert stack.http.get(f"/players/{creator.id}").body["matches_played"] == 0


def test_killed_workers_lose_no_timeout(stack) -> None:
    for worker in stack.workers:
        worker.send_signal(signal.SIGKILL)
        worker.wait(10)
    count = len(stack.workers)
    stack.workers.clear()
    try:
        matches = [_left_alone(stack)[0] for _ in range(3)]  # nobody indexes their clocks yet
        time.sleep(6)
        assert all("turn_timed_out" not in [e["type"] for e in _events(stack, m)] for m in matches)
    finally:
        for _ in range(count):
            stack.start_worker()  # their sweep catches the matches up, and indexes the clocks
    for match_id in matches:
        _wait_for(lambda match_id=match_id: "turn_timed_out" in [e["type"] for e in _events(stack, match_id)],
                  30, f"the timeout of {match_id} fires once workers run again")
