"""CPU time of processes and their children, from /proc (Linux): where a benchmark's time goes."""
from __future__ import annotations

import os
from collections.abc import Iterable

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            text = stat.read()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()  # the fields after "pid (comm)"


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of ``pid`` so far (0 when it is gone or /proc is missing)."""
    fields = _stat(pid)
    return 0.0 if fields is None else (int(fields[11]) + int(fields[12])) / _TICKS


def children(pid: int) -> list[int]:
    """Direct children of ``pid`` (e.g. gunicorn's workers)."""
    found = []
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if entry.isdigit() and (fields := _stat(int(entry))) is not None and int(fields[1]) == pid:
            found.append(int(entry))
    return found


def snapshot(groups: dict[str, Iterable[int]], alone: Iterable[str] = ()) -> dict[str, float]:
    """CPU seconds so far of each named group of processes and their direct children.

    Groups named in ``alone`` count their own processes only (e.g. the benchmark process,
    whose children are the very stack measured beside it).
    """
    totals = {}
    for name, pids in groups.items():
        everyone = set(pids) if name in alone else {p for pid in pids for p in (pid, *children(pid))}
        totals[name] = sum(cpu_seconds(pid) for pid in everyone)
    return totals


def spent(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    """CPU seconds spent per group between two snapshots."""
    return {name: after[name] - before.get(name, 0.0) for name in after}
