"""Redis unreachable: every endpoint family answers 503 STORE_UNAVAILABLE in time, then recovers.

Two ways to lose Redis: killed (connections are refused at once) and frozen with SIGSTOP
(connections hang until the client's socket timeout). Either way writes, reads, the live
stream and /health must answer 503 with the STORE_UNAVAILABLE code well within a client's
timeout - never a 500, never silence - and the same API processes must serve again by
themselves once Redis is back.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.e2e.http import Reply
from tests.reliability.play import Player, act, new_match, register, view
from tests.reliability.stack import CLIENT_TIMEOUT, Stack, TimedHttp

RECOVERY_SECONDS = 10.0  # Redis is back: every family must serve again within this


def requests(stack: Stack, player: Player, match_id: str) -> dict[str, Callable[[TimedHttp], Reply]]:
    """One request of every endpoint family, by name; each builds its own body."""
    joiner = register(stack.http, "joiner")
    waiting = new_match(stack.http, player)
    card = view(stack.http, match_id, player.token, 3)["round"]["hand"]
    finished = finished_match(stack, player)
    return {
        "POST /players": lambda http: http.post("/players", {"name": f"p-{time.monotonic_ns()}"}),
        "POST /matches": lambda http: http.post("/matches", {}, token=player.token),
        "POST /matches/{id}/join": lambda http: http.post(f"/matches/{waiting}/join", token=joiner.token),
        "POST /matches/{id}/actions": lambda http: act(http, match_id, player, {"type": "play", "card": card[0]}),
        "GET /matches/{id}": lambda http: http.get(f"/matches/{match_id}", token=player.token),
        "GET /matches": lambda http: http.get("/matches?status=playing"),
        "GET /matches/{id}/events": lambda http: http.get(f"/matches/{match_id}/events"),
        "GET /matches/{id}/replay": lambda http: http.get(f"/matches/{match_id}/replay?version=2"),
        "GET /matches/{id}/stream": lambda http: http.get(f"/matches/{finished}/stream"),
        "GET /scoreboard": lambda http: http.get("/scoreboard"),
        "GET /players/{id}": lambda http: http.get(f"/players/{player.id}"),
        "GET /players/{id}/matches": lambda http: http.get(f"/players/{player.id}/matches"),
        "GET /health": lambda http: http.get("/health"),
    }


def finished_match(stack: Stack, player: Player) -> str:
    """A match already won: its live stream sends one view and ends, holding no server thread."""
    rival = register(stack.http, "rival")
    match_id = new_match(stack.http, player, rival, start_scores=[11, 11], first_dealer="B")
    assert act(stack.http, match_id, rival, {"type": "fold"}).status == 200  # A reaches 12
    return match_id


def ask_all(stack: Stack, calls: dict[str, Callable[[TimedHttp], Reply]]) -> dict[str, tuple[int | str, float, dict]]:
    """Every call at once, each on its own connection: name -> (status or error, seconds, body)."""

    def one(call: Callable[[TimedHttp], Reply]) -> tuple[int | str, float, dict]:
        http, started = TimedHttp(stack.url, timeout=CLIENT_TIMEOUT), time.monotonic()
        try:
            reply = call(http)
            return reply.status, time.monotonic() - started, reply.body or {}
        except OSError as error:  # no answer in time
            return repr(error), time.monotonic() - started, {}

    with ThreadPoolExecutor(len(calls)) as pool:
        return dict(zip(calls, pool.map(one, calls.values())))


def api_processes(stack: Stack) -> set[int]:
    """The gunicorn master and its workers (a restarted worker would get a new pid)."""
    assert stack.api is not None
    children = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == stack.api.pid:
            children.add(int(stat.parent.name))
    return {stack.api.pid, *children}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    # Threads enough for every family at once in either gunicorn process: a request queued
    # behind threads blocked on a frozen Redis would measure the queue, not the timeout.
    stack = Stack(tmp_path_factory.mktemp("unreachable"), api_threads=16)
    try:
        yield stack.start(workers=1)
    finally:
        stack.close()


def lose_redis(stack: Stack, how: str) -> Callable[[], None]:
    """Take Redis away ``how`` ("killed" or "frozen"); the function that brings it back."""
    if how == "killed":
        stack.kill_redis()
        return stack.restart_redis
    pid = stack.redis_pid()
    os.kill(pid, signal.SIGSTOP)
    return lambda: os.kill(pid, signal.SIGCONT)


@pytest.mark.parametrize("how", ["killed", "frozen"])
def test_without_redis_every_endpoint_family_answers_503_in_time_and_recovers_by_itself(
    stack: Stack, figures: dict, how: str,
) -> None:
    a, b = register(stack.http, "a"), register(stack.http, "b")
    match_id = new_match(stack.http, a, b, first_dealer="B")
    calls = requests(stack, a, match_id)
    before = api_processes(stack)

    bring_back = lose_redis(stack, how)
    try:
        answers = ask_all(stack, calls)
    finally:
        bring_back()
    recovered_in = wait_until_all_serve(stack, calls)

    wrong = {name: answer for name, answer in answers.items()
             if answer[0] != 503 or answer[2].get("error") != "STORE_UNAVAILABLE"}
    assert wrong == {}
    slowest = max(seconds for _, seconds, _ in answers.values())
    assert slowest < CLIENT_TIMEOUT
    assert api_processes(stack) == before, "the API was restarted"
    figures.update(endpoint_families=len(calls), slowest_503_s=round(slowest, 2),
                   recovered_in_s=round(recovered_in, 2))


def wait_until_all_serve(stack: Stack, calls: dict[str, Callable[[TimedHttp], Reply]]) -> float:
    """Seconds until every call succeeds again (the action only needs to be answered by the rules)."""
    started, pending = time.monotonic(), dict(calls)
    while pending:
        assert time.monotonic() - started < RECOVERY_SECONDS, f"still failing: {sorted(pending)}"
        answers = ask_all(stack, pending)
        assert not [name for name, (status, _, _) in answers.items() if status == 500], answers
        pending = {name: call for name, call in pending.items() if not _served(answers[name][0])}
        time.sleep(0.05 if pending else 0)
    return time.monotonic() - started


def _served(status: int | str) -> bool:
    # 409: the action or join was decided by the rules, i.e. Redis answered.
    return isinstance(status, int) and (status < 300 or status == 409)
