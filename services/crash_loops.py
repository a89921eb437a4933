"""supervisord's event listener for ``make run``: crash loops reported, a program given up on started again.

supervisord gives up on a program that keeps exiting within its first seconds (FATAL) and
then leaves it down; one that stays up a while before each exit it restarts at once, however
often. Neither is said plainly in its output. ``python -m services.crash_loops RETRY_SECONDS
LOOP_EXITS LOOP_SECONDS`` runs under it as an ``[eventlistener]`` (:mod:`services.supervision`
writes the section): it prints a ``CRASH LOOP`` line for either, and starts a program given up
on again ``RETRY_SECONDS`` later, through supervisord's XML-RPC interface on its socket:
whatever it waits for (a full disk, a port taken) may clear.
"""
from __future__ import annotations

import os
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import IO, NoReturn

RETRY_SECONDS = 30
LOOP_EXITS, LOOP_SECONDS = 5, 120.0


class CrashLoops:
    """The listener's memory: which program loops, and which to start again when.

    A program given up on (FATAL: it kept exiting within its first seconds) is a crash loop,
    reported each time and started again ``retry_seconds`` later. One that stays up longer but
    exits unexpectedly ``LOOP_EXITS`` times within ``LOOP_SECONDS`` is one too, reported once
    per loop (supervisord restarts it at once each time).
    """

    def __init__(self, retry_seconds: float, loop_exits: int = LOOP_EXITS, loop_seconds: float = LOOP_SECONDS) -> None:
        self.retry_seconds, self.loop_exits, self.loop_seconds = retry_seconds, loop_exits, loop_seconds
        self._exits: dict[str, deque[float]] = {}
        self._looping: set[str] = set()
        self._due: dict[str, float] = {}

    def exited(self, name: str, now: float) -> str | None:
        """A line to report if this exit makes a loop of ``name``'s exits."""
        exits = self._exits.setdefault(name, deque(maxlen=self.loop_exits))
        exits.append(now)
        looping = len(exits) == self.loop_exits and now - exits[0] <= self.loop_seconds
        was_looping = name in self._looping
        (self._looping.add if looping else self._looping.discard)(name)
        if looping and not was_looping:
            return f"CRASH LOOP: {self.loop_exits} exits within {self.loop_seconds:g} s: see its lines above"
        return None

    def given_up(self, name: str, now: float) -> str:
        self._due[name] = now + self.retry_seconds
        return (f"CRASH LOOP: it kept exiting within its first seconds and was given up on; "
                f"starting it again in {self.retry_seconds:g} s: see its lines above")

    def due(self, now: float) -> list[str]:
        """The programs given up on whose time to start again has come (each returned once)."""
        names = [name for name, at in self._due.items() if now >= at]
        for name in names:
            del self._due[name]
        return names


def listen(loops: CrashLoops, stdin: IO[str] = sys.stdin, stdout: IO[str] = sys.stdout,
           stderr: IO[str] = sys.stderr, clock: Callable[[], float] = time.monotonic) -> NoReturn:
    """supervisord's event listener: report crash loops, start what it gave up on again when ``loops`` says."""
    from xmlrpc.client import Fault

    from supervisor import childutils

    rpc = childutils.getRPCInterface(os.environ).supervisor
    while True:
        headers, payload = childutils.listener.wait(stdin, stdout)
        event = headers["eventname"]
        if event.startswith("PROCESS_STATE_"):
            fields = childutils.get_headers(payload)
            name = f"{fields['groupname']}:{fields['processname']}"
            if event == "PROCESS_STATE_FATAL":
                _say(stderr, name, loops.given_up(name, clock()))
            elif event == "PROCESS_STATE_EXITED" and fields.get("expected") == "0":
                if line := loops.exited(name, clock()):
                    _say(stderr, name, line)
        for name in loops.due(clock()):
            try:
                rpc.startProcess(name, False)
            except (Fault, OSError) as error:  # e.g. supervisord is shutting down
                _say(stderr, name, f"not started again: {error}")
        childutils.listener.ok(stdout)


def _say(out: IO[str], name: str, line: str) -> None:
    out.write(f"{time.strftime('%H:%M:%S')} {name} | {line}\n")
    out.flush()


def main(argv: Sequence[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) != 3:
        sys.exit("usage: python -m services.crash_loops RETRY_SECONDS LOOP_EXITS LOOP_SECONDS")
    listen(CrashLoops(float(argv[0]), int(argv[1]), float(argv[2])))


if __name__ == "__main__":
    main()
