"""``make run``'s supervision for real: supervisord with toy programs, killed, looping, stopped.

Each test starts :func:`services.supervision.supervise` as ``python -m services.stack``
does (the process becomes supervisord), over programs that sleep, exit at once, or exit
after a while, and looks at the process tree in /proc and at what it printed.
"""
from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.supervision import Group, Program, Settings

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
# Sleeps, with a grandchild in its process group (as gunicorn's workers are in the master's).
STEADY = Program("steady", [PYTHON, "-c", "import subprocess, time; subprocess.Popen(['sleep', '600']); "
                                          "time.sleep(600)"])
QUICK = Program("quick", [PYTHON, "-c", "raise SystemExit(3)"])  # exits as soon as it starts
FLAKY = Program("flaky", [PYTHON, "-c", "import time; time.sleep(2.5); raise SystemExit(1)"])  # after it is up
FAST = Settings(start_seconds=1, start_retries=1, stop_seconds=5, retry_seconds=1, loop_exits=2, loop_seconds=60)


def _process_tree(pid: int) -> dict[int, str]:
    """Every live descendant of ``pid``: its command line."""
    parents, lines = {}, {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat_line = Path(f"/proc/{entry}/stat").read_text()
            parents[int(entry)] = int(stat_line[stat_line.rindex(")") + 2:].split()[1])
            lines[int(entry)] = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, ValueError):
            continue
    found, frontier = {}, {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier and child not in found}
        found.update({child: lines[child] for child in frontier})
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except OSError:
        return False


def _eventually(probe, what: str, seconds: float = 30.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if found := probe():
            return found
        time.sleep(0.1)
    raise AssertionError(f"not within {seconds:.0f} s: {what}")


class Supervised:
    """``supervise(groups)`` running in a process of its own, its output in a file."""

    def __init__(self, tmp_path: Path, groups: list[Group], settings: Settings = FAST) -> None:
        self.data_dir, self.log = tmp_path / "data", tmp_path / "out.log"
        self.data_dir.mkdir(mode=0o700)
        code = ("import sys; from pathlib import Path; from services.supervision import *; "
                f"supervise({groups!r}, Path({str(self.data_dir)!r}), {settings!r})")
        self.process = subprocess.Popen([PYTHON, "-c", code], cwd=ROOT, stdin=subprocess.DEVNULL,
                                        stdout=self.log.open("wb"), stderr=subprocess.STDOUT)

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def child(self, command: str) -> int | None:
        """The pid of the supervised child running ``command`` (not a grandchild, not still starting)."""
        return next((pid for pid, line in _process_tree(self.process.pid).items()
                     if command in line and "services.supervision guard" not in line
                     and _parent(pid) == self.process.pid), None)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            self.process.wait(30)


def _parent(pid: int) -> int | None:
    try:
        stat_line = Path(f"/proc/{pid}/stat").read_text()
        return int(stat_line[stat_line.rindex(")") + 2:].split()[1])
    except (OSError, ValueError):
        return None


@pytest.fixture
def supervised(tmp_path: Path) -> Iterator[callable]:
    started: list[Supervised] = []

    def start(*groups: Group) -> Supervised:
        started.append(Supervised(tmp_path, list(groups)))
        return started[-1]

    yield start
    for each in started:
        each.stop()


def test_a_killed_child_is_started_again_and_ctrl_c_then_stops_every_process(supervised) -> None:
    other = Program("other", [PYTHON, "-c", "import subprocess, time; subprocess.Popen(['sleep', '601']); "
                                            "time.sleep(601)"])
    stack = supervised(Group("first", [STEADY]), Group("then", [other]))
    victim = _eventually(lambda: stack.child("time.sleep(600)"), "the steady child started")
    _eventually(lambda: len(_process_tree(stack.process.pid)) == 5, "both children, their sleeps, the listener")
    orphan = [pid for pid in _process_tree(stack.process.pid) if _parent(pid) == victim]

    os.kill(victim, signal.SIGKILL)  # its sleep is left to init, as a SIGKILL leaves any grandchild
    for pid in orphan:
        os.kill(pid, signal.SIGKILL)
    _eventually(lambda: (stack.child("time.sleep(600)") or victim) != victim
                and len(_process_tree(stack.process.pid)) == 5, "the killed child started again")
    assert "exited: steady (terminated by SIGKILL; not expected)" in stack.output()
    running = set(_process_tree(stack.process.pid))

    stack.process.send_signal(signal.SIGINT)
    assert stack.process.wait(30) == 0
    assert [pid for pid in running if _alive(pid)] == []  # none left: children, grandchildren, the listener
    output = stack.output()
    assert output.index("stopped: other") < output.index("stopped: steady")  # the first group stops last


def test_its_files_are_private_and_in_its_data_dir(supervised, tmp_path: Path) -> None:
    stack = supervised(Group("first", [STEADY]))
    _eventually(lambda: (stack.data_dir / "supervisord.pid").exists(), "supervisord started")
    for name in ("supervisord.conf", "supervisord.log", "supervisord.pid"):
        assert stat.S_IMODE((stack.data_dir / name).stat().st_mode) == 0o600, name
    socket = stack.data_dir / "supervisor.sock"
    assert stat.S_ISSOCK(socket.stat().st_mode) and stat.S_IMODE(socket.stat().st_mode) == 0o700
    assert sorted(path.name for path in tmp_path.iterdir()) == ["data", "out.log"]


def test_crash_loops_are_reported_and_a_program_given_up_on_is_started_again(supervised) -> None:
    stack = supervised(Group("loops", [QUICK, FLAKY]))
    given_up = "loops:quick | CRASH LOOP: it kept exiting within its first seconds and was given up on"
    _eventually(lambda: given_up in stack.output(), "the quick one reported")
    _eventually(lambda: stack.output().count(given_up) >= 2, "the quick one started again, and given up again")
    assert stack.output().count("gave up: quick entered FATAL state") >= 2
    _eventually(lambda: "loops:flaky | CRASH LOOP: 2 exits within 60 s" in stack.output(), "the flaky one reported")
    assert "gave up: flaky" not in stack.output()  # it stays up long enough each time: restarted, not given up on


def test_the_children_stop_when_supervisord_is_killed(supervised) -> None:
    stack = supervised(Group("first", [Program("plain", [PYTHON, "-c", "import time; time.sleep(600)"])]))
    child = _eventually(lambda: stack.child("time.sleep(600)"), "the child started")
    stack.process.kill()
    stack.process.wait()
    try:
        _eventually(lambda: not _alive(child), "the child gone with its supervisor", seconds=10)
    finally:
        if _alive(child):
            os.kill(child, signal.SIGKILL)
