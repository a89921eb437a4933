"""Abusive clients against the real stack: each leaves the other clients served, and is cut off in bounded time.

- streams opened and never read, while a match is played: the player's moves are answered,
  a viewer that reads gets every move, and the stuck streams are closed once stalled
  (``STALLED_CLIENT_SECONDS``), their slots freed;
- slowloris: request heads trickled a byte at a time, connections that send nothing, bodies
  announced and never sent: all closed after a bound, while other requests are answered;
- a registration flood from one address, limits on: refused past the limit, nothing recorded
  for a refusal, while another client (behind a trusted proxy) registers and players play.
"""

from __future__ import annotations

import random
import socket
import subprocess
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

from shared import keys
from tests.e2e.http import Http
from tests.reliability.abusers import Viewer, closed_within, stuck_viewers, summary, timed, trickle
from tests.reliability.play import Player, act, new_match, pick_action, register, view
from tests.waiting import wait_for

STALLED = 2  # seconds: STALLED_CLIENT_SECONDS of these stacks
SERVED_WITHIN = 5.0  # seconds: a generous bound for "still served" on a shared, noisy machine
STUCK = 40  # streams never read
MOVES = 30
SLOW = 20  # slowloris connections of each kind


def _play(http: Http, match_id: str, players: list[Player], moves: int, each=lambda version: None) -> list[float]:
    """Up to ``moves`` actions of either player, each answered 200; how long each took."""
    rng, version, took = random.Random(7), 0, []
    for _ in range(moves):
        views = {player: view(http, match_id, player.token, version) for player in players}
        picked = pick_action(_cards_only(views), rng)
        if picked is None:
            break
        player, action = picked
        started = time.monotonic()
        reply = act(http, match_id, player, action)
        assert reply.status == 200, reply.body
        took.append(time.monotonic() - started)
        version = reply.body["version"]
        each(version)
    return took


def _cards_only(views: dict) -> dict:
    """Only card plays where any is legal: no raise or fold ends a round early, so the match lasts its moves."""
    plays = {key: {**seen, "legal_actions": [a for a in seen["legal_actions"] if a["type"] == "play"]}
             for key, seen in views.items()}
    return plays if any(seen["legal_actions"] for seen in plays.values()) else views


def _open_streams(http: Http) -> int:
    return http.get("/health").body["streams"]["open"]


def _rss_kb(api: subprocess.Popen) -> int:
    """The resident memory of the API's gunicorn worker processes, in kB."""
    children = subprocess.run(["pgrep", "-P", str(api.pid)], capture_output=True, text=True).stdout.split()
    total = 0
    for pid in children:
        with open(f"/proc/{pid}/status") as status:
            total += next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    return total


def test_streams_never_read_hold_back_no_one_and_are_closed_once_stalled(start_stack, figures) -> None:
    # A small send buffer, so that a stream not read stalls after a few views (the kernel's would take thousands).
    settings = {"STALLED_CLIENT_SECONDS": str(STALLED), "SEND_BUFFER_BYTES": "4096"}
    stack = start_stack(workers=1, api_workers=1, env=settings)
    a, b = register(stack.http, "a"), register(stack.http, "b")
    match_id = new_match(stack.http, a, b)
    path = f"/matches/{match_id}/stream"
    rss_before = _rss_kb(stack.api)
    stuck = stuck_viewers(stack.port, path, STUCK)
    reader = Viewer(stack.port, path)
    assert wait_for(lambda: _open_streams(stack.http), lambda n: n == STUCK + 1, SERVED_WITHIN) == STUCK + 1
    late: list[int] = []

    def delivered(version: int) -> None:
        _, seconds = timed(lambda: reader.wait_for(version, SERVED_WITHIN) or late.append(version))
        figures.setdefault("delivery", []).append(seconds)

    took = _play(stack.http, match_id, [a, b], MOVES, delivered)
    assert len(took) >= 10 and max(took) < SERVED_WITHIN
    assert not late, f"the reading viewer was not sent versions {late}"
    left = wait_for(lambda: _open_streams(stack.http), lambda n: n == 1, 3 * STALLED + SERVED_WITHIN)
    assert left == 1, f"{left - 1} of {STUCK} streams never read are still open"
    figures.update(stuck=STUCK, moves=len(took), moves_took=summary(took),
                   delivered=summary(figures.pop("delivery")), rss_kb=f"{rss_before}->{_rss_kb(stack.api)}")
    for sock in (*stuck, reader):
        sock.close()


def test_slowloris_connections_are_closed_after_a_bound_and_others_are_served(start_stack, figures) -> None:
    stack = start_stack(workers=1, env={"STALLED_CLIENT_SECONDS": str(STALLED)})
    a, b = register(stack.http, "a"), register(stack.http, "b")
    match_id = new_match(stack.http, a, b)
    stop = threading.Event()
    head = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"x" * 4000
    trickled = [trickle(stack.port, head, 0.2, stop) for _ in range(SLOW)]
    body = (b"POST /players HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 200\r\n\r\n{")  # a body announced, one byte of it sent
    silent: list[socket.socket] = []
    unsent: list[socket.socket] = []
    with ThreadPoolExecutor(2 * SLOW) as pool:
        for _ in range(SLOW):
            silent.append(socket.create_connection(("127.0.0.1", stack.port)))
            unsent.append(socket.create_connection(("127.0.0.1", stack.port)))
            unsent[-1].sendall(body)
        closing = [pool.submit(closed_within, sock, 6 * STALLED + 5) for sock in (*silent, *unsent)]
        took = _play(stack.http, match_id, [a, b], 15)
        closed = [future.result() for future in closing]
    assert max(took) < SERVED_WITHIN
    assert None not in closed, f"{closed.count(None)} idle connections were still open"
    wait_for(lambda: [t() for t in trickled], lambda seen: None not in seen, 15)
    trickled_closed = [t() for t in trickled]
    stop.set()
    assert None not in trickled_closed, f"{trickled_closed.count(None)} trickling connections were still open"
    assert stack.http.get("/health").status == 200
    figures.update(slow=3 * SLOW, moves_took=summary(took), idle_closed=summary(closed[:SLOW]),
                   unsent_body_closed=summary(closed[SLOW:]), trickle_closed=summary(trickled_closed))


REGISTRATIONS = 5  # per address and hour, on the limited stack
FLOOD = 30
ABUSER = "127.0.0.5"  # another loopback address: another client (Linux routes 127/8 to lo)


def test_a_registration_flood_is_refused_past_the_limit_and_others_are_served(start_stack, figures) -> None:
    limits = {"RATE_LIMITS": "on", "REGISTRATIONS_PER_HOUR": str(REGISTRATIONS), "TRUSTED_PROXIES": "127.0.0.1"}
    stack = start_stack(workers=1, env=limits)
    proxy = stack.http  # 127.0.0.1, a trusted proxy: its X-Forwarded-For names the client
    a, b = (_register(proxy, f"198.51.100.{n}") for n in (1, 2))
    match_id = new_match(proxy, a, b)
    names = [f"flood-{uuid.uuid4().hex[:10]}" for _ in range(FLOOD)]
    flooder = Http(stack.url, timeout=10, source=ABUSER)
    spoofed = [{"X-Forwarded-For": f"203.0.113.{n}"} for n in range(FLOOD)]  # not believed from an untrusted peer
    with ThreadPoolExecutor(8) as pool:
        replies = pool.map(lambda n: flooder.post("/players", {"name": names[n]}, headers=spoofed[n]), range(FLOOD))
        took = _play(proxy, match_id, [a, b], 10)
        replies = list(replies)
    served = [name for name, reply in zip(names, replies) if reply.status == 201]
    refused = [reply for reply in replies if reply.status == 429]
    assert len(served) == REGISTRATIONS and len(refused) == FLOOD - REGISTRATIONS
    for reply in refused:
        assert reply.body["error"] == "RATE_LIMITED" and reply.body["limit"] == "registrations"
        assert 0 < int(reply.headers["retry-after"]) <= 3600
    with stack.client() as client:
        assert sorted(name for name in names if client.exists(keys.player_name(name))) == sorted(served)
    assert flooder.post("/players", {"name": f"flood-{uuid.uuid4().hex[:10]}"}).status == 429
    assert _register(proxy, "198.51.100.3")  # another client behind the trusted proxy
    assert len(took) == 10 and max(took) < SERVED_WITHIN
    figures.update(flood=FLOOD, accepted=len(served), refused=len(refused), moves_took=summary(took))


def _register(proxy: Http, client: str) -> Player:
    """A player registered through the trusted proxy by ``client``."""
    name = f"p-{uuid.uuid4().hex[:10]}"
    reply = proxy.post("/players", {"name": name}, headers={"X-Forwarded-For": client})
    assert reply.status == 201, reply.body
    return Player(reply.body["id"], name, reply.body["token"])
