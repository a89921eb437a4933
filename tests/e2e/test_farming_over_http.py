"""The farm of the security review, against the running stack: a puppet creates, the main account
joins, the puppet resigns at once. Aborted matches leave the scoreboard as it was; a match
resigned after round 1 still counts. A 5 s clock is custom terms: a join needs accept_custom."""
from __future__ import annotations

from tests.waiting import wait_until

from .table import Seated, register

FARMED = 5


def _row(stack, player: Seated) -> dict:
    return stack.http.get(f"/players/{player.id}").body


def _finished_view(stack, match_id: str) -> dict:
    """The match's view once the projector has folded its end (results are written before views)."""
    wait_until(lambda: stack.http.get(f"/matches/{match_id}").body["status"] == "finished", 20,
               f"{match_id} is projected as finished")
    return stack.http.get(f"/matches/{match_id}").body


def _puppet_match(stack, puppet: Seated, main: Seated, *steps: str) -> str:
    created = stack.http.post("/matches", {"first_dealer": "B"}, token=puppet.token)  # the puppet leads
    assert created.status == 201, created.body
    match_id = created.body["id"]
    assert stack.http.post(f"/matches/{match_id}/join", token=main.token).status == 200
    for action in (*steps, "resign"):
        acted = stack.http.post(f"/matches/{match_id}/actions", {"type": action}, token=puppet.token)
        assert acted.status == 200, acted.body
    return match_id


def test_a_puppets_instant_resignations_leave_the_scoreboard_unchanged(stack) -> None:
    puppet, main = register(stack, "puppet"), register(stack, "main")
    before = _row(stack, main)

    farmed = [_puppet_match(stack, puppet, main) for _ in range(FARMED)]

    for match_id in farmed:
        view = _finished_view(stack, match_id)
        assert view["ended_by"] == "aborted" and view["winner"] == "B"
    assert _row(stack, main) == before and before["matches_played"] == before["matches_won"] == 0
    assert _row(stack, puppet)["matches_played"] == 0
    board = stack.http.get("/scoreboard?limit=100").body["players"]
    assert not {row["id"] for row in board} & {puppet.id, main.id}

    played = _puppet_match(stack, puppet, main, "fold")  # round 1 is complete before the resignation
    assert _finished_view(stack, played)["ended_by"] == "resigned"
    wait_until(lambda: _row(stack, main)["matches_won"] == 1, 20, "the played match counts")
    assert _row(stack, main)["matches_played"] == 1


def test_a_five_second_clock_is_joined_only_with_accept_custom(stack) -> None:
    creator, joiner = register(stack, "quick"), register(stack, "taker")
    created = stack.http.post("/matches", {"rules": {"turn_seconds": 5}}, token=creator.token)
    assert created.status == 201 and created.body["custom"] is True
    match_id = created.body["id"]

    refused = stack.http.post(f"/matches/{match_id}/join", token=joiner.token)

    assert refused.status == 409 and refused.body["error"] == "CUSTOM_TERMS"
    assert "a clock of 5 seconds a turn" in refused.body["message"]
    assert stack.http.get(f"/matches/{match_id}/events").body["events"][-1]["type"] == "match_created"
    joined = stack.http.post(f"/matches/{match_id}/join", {"accept_custom": True}, token=joiner.token)
    assert joined.status == 200 and joined.body["custom"] is True
