"""Clients that hold the API's connections, against the real stack: each is cut off, the others are served.

- bodies trickled a byte every 2 s after a head sent at once (progress enough for the stall
  bound): each answered 408 and closed at ``REQUEST_DEADLINE_SECONDS``, more of them than the
  process has connections, while ``/health`` answers;
- one address opening connections past ``CONNECTIONS_PER_CLIENT``: the ones past it closed at
  once, unread, while another address is served and a trusted proxy is not capped;
- one address asking for more ``wait=`` reads than its share: the rest answer at once, and
  another address's wait still waits for the move it asked for;
- no control socket: gunicorn creates none under ``$HOME`` or ``$XDG_RUNTIME_DIR``.
"""

from __future__ import annotations

import random
import socket
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from tests.e2e.http import Http
from tests.reliability.abusers import summary
from tests.reliability.play import act, pick_action, register, view
from tests.waiting import wait_for

DEADLINE = 4  # seconds: REQUEST_DEADLINE_SECONDS of the trickle's stack
PAUSE = 2.0  # seconds between two trickled bytes: progress, for the 30 s stall bound
CONNECTIONS = 40  # WORKER_CONNECTIONS of the trickle's one API process ...
TRICKLED = 45  # ... fewer than the bodies trickled at once
SERVED_WITHIN = 15.0  # seconds: a generous bound for "answered" on a shared, noisy machine
CAP = 5  # CONNECTIONS_PER_CLIENT of the cap's stack
WATCHED = 6.0  # seconds a connection is watched: one refused is closed by then, one held (30 s) is not
ABUSER, PROXY = "127.0.0.2", "127.0.0.3"  # other loopback addresses: other clients (Linux routes 127/8 to lo)
WAIT = 20  # seconds: the waits asked for (their answer comes at the move, long before)


def _announced(port: int, source: str = "127.0.0.1", length: int = 200) -> socket.socket:
    """A connection from ``source`` that sent a registration's head, announcing ``length`` body bytes, and ``{``."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(source, 0))
    sock.sendall(b"POST /players HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n{" % length)
    return sock


def _trickle(sock: socket.socket, stop: threading.Event) -> None:
    """One more body byte every ``PAUSE`` seconds, on a thread, until the server closes or ``stop`` is set."""

    def run() -> None:
        while not stop.wait(PAUSE):
            try:
                sock.sendall(b" ")
            except OSError:
                return

    threading.Thread(target=run, daemon=True).start()


def _closed_within(sock: socket.socket, seconds: float) -> tuple[float | None, bytes]:
    """Seconds until the server closed ``sock`` (None: still open by then), and what it sent first."""
    started, sent = time.monotonic(), b""
    sock.settimeout(seconds)
    try:
        while chunk := sock.recv(65536):
            sent += chunk
    except TimeoutError:
        return None, sent
    except OSError:
        pass  # reset: closed too
    return time.monotonic() - started, sent


def _health(http: Http) -> float:
    started = time.monotonic()
    assert http.get("/health").status == 200
    return time.monotonic() - started


def test_trickled_bodies_are_answered_408_and_closed_at_the_deadline_while_health_answers(start_stack, figures):
    settings = {"REQUEST_DEADLINE_SECONDS": str(DEADLINE), "WORKER_CONNECTIONS": str(CONNECTIONS)}
    stack = start_stack(workers=1, api_workers=1, env=settings)
    health = Http(stack.url, timeout=SERVED_WITHIN)
    stop = threading.Event()
    trickled = [_announced(stack.port) for _ in range(TRICKLED)]
    with ThreadPoolExecutor(TRICKLED) as pool:
        closing = [pool.submit(_closed_within, sock, 3 * DEADLINE + SERVED_WITHIN) for sock in trickled]
        for sock in trickled:
            _trickle(sock, stop)
        answered = [_health(health) for _ in range(5)]  # each within SERVED_WITHIN (the client's timeout)
        closed = [future.result() for future in closing]
    stop.set()
    assert [seconds for seconds, _ in closed].count(None) == 0, "trickled bodies were still being read"
    assert all(sent.startswith(b"HTTP/1.1 408 ") and b'"REQUEST_TIMEOUT"' in sent for _, sent in closed)
    assert _health(health) < SERVED_WITHIN
    figures.update(trickled=TRICKLED, connections=CONNECTIONS, closed_after=summary([s for s, _ in closed]),
                   health=summary(answered))
    for sock in trickled:
        sock.close()


def test_connections_past_an_addresss_cap_are_closed_at_once_while_others_are_served(start_stack, figures):
    settings = {"RATE_LIMITS": "on", "CONNECTIONS_PER_CLIENT": str(CAP), "TRUSTED_PROXIES": PROXY}
    stack = start_stack(workers=1, api_workers=1, env=settings)
    flood = [_announced(stack.port, ABUSER) for _ in range(3 * CAP)]  # each held up to 30 s: a body never sent
    proxied = [_announced(stack.port, PROXY) for _ in range(2 * CAP)]
    with ThreadPoolExecutor(len(flood) + len(proxied)) as pool:
        watched = [pool.submit(_closed_within, sock, WATCHED) for sock in (*flood, *proxied)]
        answered = _health(stack.http)  # 127.0.0.1: another client
        seen = [future.result() for future in watched]
    flooded, behind_proxy = seen[:len(flood)], seen[len(flood):]
    held = [sent for seconds, sent in flooded if seconds is None]
    refused = [sent for seconds, sent in flooded if seconds is not None]
    assert len(held) == CAP and len(refused) == 2 * CAP, f"{len(held)} held, {len(refused)} refused"
    assert set(refused) == {b""}  # closed before a byte was read or answered
    assert all(seconds is None for seconds, _ in behind_proxy), "a trusted proxy's connections were capped"
    for sock in (*flood, *proxied):
        sock.close()
    again = Http(stack.url, timeout=SERVED_WITHIN, source=ABUSER)
    assert wait_for(lambda: _status(again), lambda status: status == 200, SERVED_WITHIN) == 200  # given back
    figures.update(flood=len(flood), held=len(held), refused=len(refused), proxied=len(proxied),
                   health=summary([answered]))


def _status(http: Http) -> int | None:
    try:
        return http.get("/health").status
    except OSError:
        return None  # refused: the server has not yet seen the held connections close


def test_an_address_past_its_share_of_waits_leaves_another_addresss_wait_waiting(start_stack, figures):
    stack = start_stack(workers=1, api_workers=1)  # the default MAX_WAITS and WAITS_PER_CLIENT (4)
    a, b = register(stack.http, "a"), register(stack.http, "b")
    match_id = stack.http.post("/matches", {}, token=a.token).body["id"]
    version = stack.http.post(f"/matches/{match_id}/join", {}, token=b.token).body["version"]
    path = f"/matches/{match_id}?min_version={version + 1}&wait={WAIT}"
    abuser, other = Http(stack.url, timeout=2 * WAIT, source=ABUSER), Http(stack.url, timeout=2 * WAIT)
    with ThreadPoolExecutor(9) as pool:
        waits: list[Future] = [pool.submit(abuser.get, path) for _ in range(8)]  # twice its share
        at_once = wait_for(lambda: [w for w in waits if w.done()], lambda done: len(done) >= 4, SERVED_WITHIN)
        assert len(at_once) == 4 and all(w.result().body["version"] == version for w in at_once)
        waiting = pool.submit(other.get, path)
        assert not wait_for(waiting.done, bool, 1.5), "another address's wait was answered at once"
        _move(stack.http, match_id, (a, b), version)
        assert waiting.result().body["version"] == version + 1  # it waited for the move, and got it
        held = [w.result().body["version"] for w in waits if w not in at_once]
    assert held == [version + 1] * 4
    figures.update(asked=len(waits), answered_at_once=len(at_once), held=len(held))


def _move(http: Http, match_id: str, players: tuple, version: int) -> None:
    """One legal action of whichever player may act."""
    views = {player: view(http, match_id, player.token, version) for player in players}
    player, action = pick_action(views, random.Random(3))
    assert act(http, match_id, player, action).status == 200


def test_gunicorn_opens_no_control_socket(start_stack, tmp_path: Path) -> None:
    home, runtime = tmp_path / "home", tmp_path / "runtime"
    home.mkdir()
    runtime.mkdir()
    stack = start_stack(workers=1, api_workers=1, env={"HOME": str(home), "XDG_RUNTIME_DIR": str(runtime)})
    assert _health(stack.http) < SERVED_WITHIN
    assert list(home.iterdir()) == [] and list(runtime.iterdir()) == []  # no gunicorn.ctl any other API could take
