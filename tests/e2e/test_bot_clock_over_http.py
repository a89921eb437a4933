"""Each level of the bot answers inside a short clock under load, on the running stack.

Several matches per level at once, at the shortest clock API.md allows (5 s), each played
over HTTP by a client of its own (its own address: the API lets one address hold only a few
waiting reads) that moves at once, for whole rounds. The clock is the server's: the bot kept
it if no ``turn_timed_out`` of its seat was recorded (no timing is measured here).
"""
from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor

import pytest

from .http import Http
from .table import Seated, register

TURN_SECONDS = 5  # the shortest clock API.md allows ("Time")
MATCHES_PER_LEVEL = {"easy": 2, "medium": 2, "hard": 4, "expert": 4}
WHOLE_ROUNDS = 2
HUMAN, BOT = "A", "B"


def _awaits_me(current: dict) -> bool:
    pending = current["round"]["pending"]
    return pending["by"] != HUMAN if pending else current["round"]["turn"] == HUMAN


def _view(http: Http, match_id: str, me: Seated, min_version: int) -> dict:
    reply = http.get(f"/matches/{match_id}?min_version={min_version}&wait=15", token=me.token)
    assert reply.status == 200 and reply.body["version"] >= min_version, (reply.status, reply.body)
    return reply.body


def _play_rounds(http: Http, me: Seated, level: str, seed: int) -> str:
    """A bot match at ``level``: instant random moves of seat A until ``WHOLE_ROUNDS`` rounds are
    over and the bot has answered every move; then A resigns (the stack is shared). Its id."""
    created = http.post("/matches", {"opponent": "bot", "bot_level": level, "rules": {"turn_seconds": TURN_SECONDS}},
                        token=me.token)
    assert created.status == 201, created.body
    match_id, rng = created.body["id"], random.Random(seed)
    current = _view(http, match_id, me, created.body["version"])
    while current["status"] == "playing":
        if not _awaits_me(current):  # the bot's move: wait for it (or for the clock's, past its deadline)
            current = _view(http, match_id, me, current["version"] + 1)
        elif current["round"]["number"] > WHOLE_ROUNDS:
            break
        else:
            choices = [a for a in current["legal_actions"] if a["type"] not in ("fold", "resign")]
            acted = http.post(f"/matches/{match_id}/actions", rng.choice(choices), token=me.token,
                              headers={"If-Match": f'"{current["version"]}"'})
            assert acted.status == 200, acted.body
            current = _view(http, match_id, me, acted.body["version"])
    if current["status"] == "playing":
        resigned = http.post(f"/matches/{match_id}/actions", {"type": "resign"}, token=me.token)
        assert resigned.status == 200, resigned.body
    return match_id


def _timed_out(stack, match_id: str) -> list[str]:
    events = stack.http.get(f"/matches/{match_id}/events?limit=1000").body["events"]
    return [event["data"]["seat"] for event in events if event["type"] == "turn_timed_out"]


@pytest.mark.timeout(120)
def test_every_level_answers_inside_a_five_second_clock_with_matches_at_every_level_at_once(stack):
    games = [(level, index) for level, count in MATCHES_PER_LEVEL.items() for index in range(count)]
    base = f"http://{stack.http.host}:{stack.http.port}"
    clients = [(Http(base, source=f"127.0.1.{number + 1}"), register(stack, f"clock-{level}"))
               for number, (level, _) in enumerate(games)]
    with ThreadPoolExecutor(len(games)) as threads:
        played = list(threads.map(lambda game, client: (game[0], _play_rounds(*client, *game)), games, clients))
    late = {(level, match_id): seats for level, match_id in played if BOT in (seats := _timed_out(stack, match_id))}
    assert not late, f"the bot let its clock run out: {late}"
