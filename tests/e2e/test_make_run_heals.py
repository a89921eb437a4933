"""``make run`` heals: each kind of process killed under it comes back, nothing acknowledged is lost.

The whole stack is started the way ``make run`` starts it (``python -m services.stack``:
embedded Redis, API, timer, a worker, the bot), in a directory of its own. Each kind of
child is SIGKILLed in turn; the service must answer again and every event acknowledged
before the kill must still be in the match's log. Ctrl-C (SIGINT) then stops everything.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.embedded_redis import free_port
from tests.e2e.http import Http

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
KINDS = {  # what to kill, found by its command line among the stack's children
    "redis": "redis-server",
    "api": "services.api:app_from_env",
    "worker": "-m services.projector",
    "bot": "-m services.bots",
}


def _children(pid: int) -> dict[int, str]:
    found = {}
    for entry in os.listdir("/proc"):
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            if entry.isdigit() and int(stat[stat.rindex(")") + 2:].split()[1]) == pid:
                found[int(entry)] = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, ValueError):
            continue
    return found


def _child(pid: int, kind: str) -> int | None:
    return next((child for child, args in _children(pid).items() if KINDS[kind] in args), None)


def _eventually(probe, what: str, seconds: float = 30.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if found := probe():
                return found
        except OSError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"not within {seconds:.0f} s: {what}")


@pytest.fixture
def make_run(tmp_path: Path) -> Iterator[tuple[subprocess.Popen, Http]]:
    port = free_port()
    env = {**os.environ, "DATA_DIR": str(tmp_path / "data"), "PORT": str(port), "WORKERS": "1",
           "RATE_LIMITS": "off", "PYTHONPATH": str(ROOT)}
    for name in ("REDIS_URL", "QUEUE_URL", "BOT_TOKEN"):
        env.pop(name, None)
    stack = subprocess.Popen([sys.executable, "-m", "services.stack"], env=env, cwd=tmp_path,
                             stdout=(tmp_path / "run.log").open("wb"), stderr=subprocess.STDOUT)
    http = Http(f"http://127.0.0.1:{port}", timeout=10)
    try:
        _eventually(lambda: http.request("GET", "/health").status == 200, "make run answers /health")
        yield stack, http
    finally:
        if stack.poll() is None:
            stack.send_signal(signal.SIGINT)
            stack.wait(30)


def _player(http: Http, name: str) -> str:
    return http.request("POST", "/players", {"name": name}).body["token"]


def test_each_kind_of_process_killed_under_make_run_comes_back_and_nothing_acknowledged_is_lost(make_run) -> None:
    stack, http = make_run
    a, b = _player(http, "Heal A"), _player(http, "Heal B")
    match_id = http.request("POST", "/matches", {}, token=a).body["id"]
    assert http.request("POST", f"/matches/{match_id}/join", token=b).status == 200
    acknowledged = http.request("GET", f"/matches/{match_id}/events", token=a).body
    for kind in KINDS:
        victim = _eventually(lambda k=kind: _child(stack.pid, k), f"a {kind} under make run")
        os.kill(victim, signal.SIGKILL)
        _eventually(lambda v=victim, k=kind: (_child(stack.pid, k) or v) != v, f"{kind} restarted")
        _eventually(lambda: http.request("GET", "/health").status == 200, f"/health after the {kind} died")
        # Commands are answered again, a worker projects them, and what was acknowledged is all still there.
        created = _eventually(lambda: http.request("POST", "/matches", {}, token=a), f"{kind}: a command")
        assert created.status == 201
        _eventually(lambda c=created: http.request("GET", f"/matches/{c.body['id']}", token=a).status == 200,
                    f"{kind}: the new match projected")
        events = http.request("GET", f"/matches/{match_id}/events", token=a).body
        assert events["events"][:len(acknowledged["events"])] == acknowledged["events"]
    assert stack.poll() is None  # the supervisor itself never went down
    stack.send_signal(signal.SIGINT)
    assert stack.wait(30) == 0
    assert _children(stack.pid) == {}
