"""Keeping ``make run``'s processes up: each child that dies is started again, the others serve on.

A child that exits is restarted after a back-off that doubles from ``FIRST_DELAY`` up to
``MAX_DELAY``, and starts again from ``FIRST_DELAY`` once the child has stayed up
``STABLE_SECONDS``. A child that keeps dying (``LOOP_EXITS`` exits within
``LOOP_SECONDS``) is reported as a crash loop, loudly and once per loop, and still
retried at the longest delay: whatever it waits for (a full disk, a port taken) may clear.

Each child runs in a session of its own, so a Ctrl-C at the terminal reaches only this
process, which stops the children in the order given in reverse (the embedded Redis last,
so its AOF is flushed after the last write), SIGTERM first and SIGKILL after
``STOP_SECONDS``. Children also ask the kernel for SIGTERM should this process die
without that (PR_SET_PDEATHSIG, on Linux). Every line a child prints is shown prefixed
with the time and its name, as honcho showed them.
"""
from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import IO

FIRST_DELAY, MAX_DELAY = 0.5, 30.0
STABLE_SECONDS = 30.0
LOOP_EXITS, LOOP_SECONDS = 5, 60.0
STOP_SECONDS = 10.0
_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """Run in a child before exec: SIGTERM it when its parent goes away (Linux; elsewhere nothing)."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except OSError:
        pass


@dataclass(frozen=True)
class Program:
    """One process to keep running: its name in the output and its command line."""

    name: str
    argv: Sequence[str]


@dataclass
class Child:
    """A program's current process and its record of exits."""

    program: Program
    process: subprocess.Popen | None = None
    started_at: float = 0.0
    delay: float = FIRST_DELAY
    restart_at: float | None = None
    exits: deque = field(default_factory=lambda: deque(maxlen=LOOP_EXITS))
    looping: bool = False


class Supervisor:
    """Start the programs, restart whichever dies, stop them all on SIGINT or SIGTERM."""

    def __init__(self, programs: Sequence[Program], out: IO[str] = sys.stdout,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.children = [Child(program) for program in programs]
        self._out, self._clock, self._lock = out, clock, threading.Lock()
        self._stopping = threading.Event()

    def run(self) -> int:
        """Supervise until asked to stop; 0 once every child is stopped."""
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda *_: self._stopping.set())
        for child in self.children:
            self._start(child)
        while not self._stopping.wait(0.2):
            self.tend()
        self.stop()
        return 0

    def tend(self) -> None:
        """One look at every child: note the ones that exited, start those whose delay is over."""
        now = self._clock()
        for child in self.children:
            if child.process is not None and (code := child.process.poll()) is not None:
                self._exited(child, code, now)
            if child.process is None and child.restart_at is not None and now >= child.restart_at:
                self._start(child)

    def stop(self) -> None:
        """SIGTERM every child, last started first; SIGKILL whatever is left after STOP_SECONDS."""
        running = [child.process for child in reversed(self.children) if child.process and child.process.poll() is None]
        for process in running:
            self._signal(process, signal.SIGTERM)
            try:
                process.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                self._signal(process, signal.SIGKILL)
                process.wait()

    def _start(self, child: Child) -> None:
        try:
            process = subprocess.Popen(
                child.program.argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True, preexec_fn=die_with_parent,
            )
        except OSError as error:  # e.g. the binary went missing: a failed start counts as an exit
            self.say(child.program.name, f"could not start: {error}")
            self._exited(child, None, self._clock())
            return
        child.process, child.started_at, child.restart_at = process, self._clock(), None
        threading.Thread(target=self._pump, args=(child.program.name, process.stdout), daemon=True).start()

    def _exited(self, child: Child, code: int | None, now: float) -> None:
        if now - child.started_at >= STABLE_SECONDS:
            child.delay = FIRST_DELAY  # it had been up a while: this is a fresh failure, not a loop
        child.exits.append(now)
        child.process, child.restart_at = None, now + child.delay
        self.say(child.program.name, f"exited ({_described(code)}); restarting in {child.delay:g} s")
        looping = len(child.exits) == LOOP_EXITS and now - child.exits[0] <= LOOP_SECONDS
        if looping and not child.looping:
            self.say(child.program.name, f"CRASH LOOP: {LOOP_EXITS} exits within {LOOP_SECONDS:g} s; "
                                         f"still retrying, every {MAX_DELAY:g} s at most: see its lines above")
        child.looping = looping
        child.delay = min(child.delay * 2, MAX_DELAY)

    def _pump(self, name: str, stream: IO[bytes]) -> None:
        for raw in iter(stream.readline, b""):
            self.say(name, raw.decode(errors="replace").rstrip("\n"))
        stream.close()

    def say(self, name: str, line: str) -> None:
        with self._lock:
            self._out.write(f"{time.strftime('%H:%M:%S')} {name:<9} | {line}\n")
            self._out.flush()

    @staticmethod
    def _signal(process: subprocess.Popen, signum: int) -> None:
        try:
            os.killpg(process.pid, signum)  # the child's whole session: gunicorn's workers too
        except ProcessLookupError:
            pass


def _described(code: int | None) -> str:
    if code is None:
        return "did not start"
    return f"killed by {signal.Signals(-code).name}" if code < 0 else f"exit code {code}"
