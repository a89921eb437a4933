"""Keeping ``make run``'s processes up, with supervisord: its configuration, and what it lacks.

:func:`supervise` writes a supervisord configuration into DATA_DIR (0600, beside its control
socket, pidfile and log: two stacks with two DATA_DIRs run side by side) and becomes
supervisord, in the foreground. supervisord starts the groups of programs in the order
given and restarts whichever program exits: one that exits within ``START_SECONDS`` of
starting is retried after 1, 2, … ``START_RETRIES`` seconds, then given up (FATAL). SIGINT (Ctrl-C) or SIGTERM
stops them group after group in the reverse order, each program's process group (gunicorn's
workers too) SIGTERMed and SIGKILLed after ``STOP_SECONDS``: the embedded Redis last, so its
AOF is flushed after the last write. Children's lines go to its standard output as they come.

What supervisord does not do, added here:

- crash loops are reported, and a program given up on is started again a while later: the
  event listener in :mod:`services.crash_loops`.
- its children outlive it should it be SIGKILLed (measured: the embedded Redis and the
  API stayed up under init, the AOF open). Each child is started through
  ``python -m services.supervision guard PID``, which asks the kernel to SIGTERM it when its
  parent dies (PR_SET_PDEATHSIG, kept across exec; Linux, elsewhere nothing) and execs it.
"""
from __future__ import annotations

import fcntl
import os
import pwd
import secrets
import shlex
import stat
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from shared.parent_death import die_with_parent
from shared.private_files import PRIVATE_UMASK, private_output

from .crash_loops import LOOP_EXITS, LOOP_SECONDS, RETRY_SECONDS

START_SECONDS, START_RETRIES = 10, 5
STOP_SECONDS = 10
CONFIG_NAME = "supervisord.conf"


@dataclass(frozen=True)
class Program:
    """One program to keep running: its name in supervisord, its command line, how many copies.

    ``copies`` > 1 runs ``name.1`` … ``name.N``.
    """

    name: str
    argv: Sequence[str]
    copies: int = 1


@dataclass(frozen=True)
class Group:
    """Programs started together and stopped together (supervisord stops one group at a time, a second each)."""

    name: str
    programs: Sequence[Program]


@dataclass(frozen=True)
class Settings:
    """How quickly a program is given up on and tried again (shorter in the tests)."""

    start_seconds: int = START_SECONDS
    start_retries: int = START_RETRIES
    stop_seconds: int = STOP_SECONDS
    retry_seconds: int = RETRY_SECONDS
    loop_exits: int = LOOP_EXITS
    loop_seconds: float = LOOP_SECONDS


def configuration(groups: Sequence[Group], data_dir: Path, password: str, settings: Settings = Settings(),
                  python: str = sys.executable, directory: Path | None = None, supervisord: int | None = None) -> str:
    """The supervisord configuration (INI) that keeps ``groups`` running, its files all in ``data_dir``.

    The groups start in the order given and stop in reverse. ``supervisord`` is the pid it will
    run as (this process's, by default: :func:`supervise` becomes it).
    """
    supervisord = supervisord or os.getpid()
    directory = directory or Path.cwd()
    socket = data_dir / "supervisor.sock"
    sections: dict[str, dict[str, object]] = {
        "unix_http_server": {"file": socket, "chmod": "0700", "username": "stack", "password": password},
        "supervisorctl": {"serverurl": f"unix://{socket}", "username": "stack", "password": password},
        "rpcinterface:supervisor": {
            "supervisor.rpcinterface_factory": "supervisor.rpcinterface:make_main_rpcinterface"},
        "supervisord": {"nodaemon": "true", "pidfile": data_dir / "supervisord.pid", "umask": "077",
                        "logfile": data_dir / "supervisord.log", "logfile_maxbytes": "1MB", "logfile_backups": 1,
                        "childlogdir": data_dir, **_same_user()},
    }
    for priority, group in enumerate(groups, start=1):
        sections[f"group:{group.name}"] = {"programs": ",".join(program.name for program in group.programs),
                                           "priority": priority * 10}
    programs = [program for group in groups for program in group.programs]
    for priority, program in enumerate(programs, start=1):
        sections[f"program:{program.name}"] = _program(program, priority * 10, settings, python, directory,
                                                       supervisord)
    sections["eventlistener:crash-loops"] = {  # stopped first: nothing is started again while all stop
        "command": _command([python, "-m", "services.crash_loops", str(settings.retry_seconds),
                             str(settings.loop_exits), str(settings.loop_seconds)]),
        "directory": directory, "priority": 999, "events": "PROCESS_STATE_FATAL,PROCESS_STATE_EXITED,TICK_5",
        "environment": f'SUPERVISOR_USERNAME="stack",SUPERVISOR_PASSWORD="{password}"',
        "stdout_logfile": "NONE", "stderr_logfile": "/dev/stderr", "stderr_logfile_maxbytes": 0,
    }
    return "".join(f"[{name}]\n" + "".join(f"{key} = {_escaped(key, value)}\n" for key, value in section.items())
                   + "\n" for name, section in sections.items())


def _program(program: Program, priority: int, settings: Settings, python: str, directory: Path,
             supervisord: int) -> dict[str, object]:
    return {
        "command": _command([python, "-m", "services.supervision", "guard", str(supervisord), *program.argv]),
        "directory": directory, "priority": priority, "autorestart": "true",
        "startsecs": settings.start_seconds, "startretries": settings.start_retries,
        "stopsignal": "TERM", "stopwaitsecs": settings.stop_seconds, "stopasgroup": "true",
        "redirect_stderr": "true", "stdout_logfile": "/dev/stdout", "stdout_logfile_maxbytes": 0,
        **({"numprocs": program.copies, "numprocs_start": 1, "process_name": "%(program_name)s.%(process_num)d"}
           if program.copies > 1 else {}),
    }


def supervise(groups: Sequence[Group], data_dir: Path, settings: Settings = Settings()) -> NoReturn:
    """Write the configuration into ``data_dir`` and become supervisord, in the foreground, until stopped."""
    os.umask(PRIVATE_UMASK)  # supervisord applies its own only when it daemonizes: its log is the owner's too
    path = data_dir / CONFIG_NAME
    with private_output(path, replace=True) as file:
        file.write(configuration(groups, data_dir, secrets.token_urlsafe(24), settings).encode())
    sys.stdout.flush()
    for output in (sys.stdout, sys.stderr):
        _appending(output.fileno())
    os.execv(sys.executable, [sys.executable, "-m", "supervisor.supervisord", "--configuration", str(path)])


def guard(supervisord: int, argv: Sequence[str]) -> NoReturn:
    """Become ``argv``, asking the kernel first for SIGTERM should the parent (``supervisord``) die."""
    die_with_parent()
    if os.getppid() != supervisord:  # it died before the request was in: nothing would stop this one
        sys.exit(f"{argv[0]}: not started, its supervisor (pid {supervisord}) is gone")
    os.execvp(argv[0], list(argv))


def _appending(descriptor: int) -> None:
    """Make a file that output is redirected to (``make run > run.log``) append-only.

    supervisord writes each child's lines through a descriptor of its own onto ``/dev/stdout``
    (appending) and its own lines through the one it was given: without O_APPEND on that one,
    its lines overwrite the children's.
    """
    if stat.S_ISREG(os.fstat(descriptor).st_mode):
        fcntl.fcntl(descriptor, fcntl.F_SETFL, fcntl.fcntl(descriptor, fcntl.F_GETFL) | os.O_APPEND)


def _same_user() -> dict[str, str]:
    """``user`` naming who runs it: supervisord then stays that user without warning that root has no ``user``."""
    try:
        return {"user": pwd.getpwuid(os.getuid()).pw_name}
    except KeyError:  # a uid with no name (some containers): root's warning, then
        return {}


def _command(argv: Sequence[str]) -> str:
    return " ".join(shlex.quote(str(part)) for part in argv)


def _escaped(key: str, value: object) -> str:
    """``%`` is supervisord's expansion (``%(ENV_X)s``): doubled, save where it is meant."""
    text = str(value)
    return text if key == "process_name" else text.replace("%", "%%")


def main(argv: Sequence[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] != ["guard"] or len(argv) < 3:
        sys.exit("usage: python -m services.supervision guard SUPERVISORD_PID COMMAND [ARG…]")
    guard(int(argv[1]), argv[2:])


if __name__ == "__main__":
    main()
