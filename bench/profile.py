"""Where a command's CPU goes: py-spy on the API processes under figure 1's load.

``python -m bench.profile [--seconds 15] [--py-spy PATH] [--reference] [--role api|projector]``
starts the benchmark's stack, has 4 client processes play whole matches (as figure 1's full
path; with ``--reference``, post to the reference endpoint instead), samples every process of
the role with ``py-spy record`` (raw collapsed stacks, kept under ``var/bench/``) and prints
the share of the busy samples by part of the command path, with µs per command, and the top
frames.
"""
from __future__ import annotations

import argparse
import collections
import multiprocessing
import shutil
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from . import cpu
from .stack import Stack
from .throughput import hit_reference, play_matches

# Each stack goes to the first part any of its frames names (the order settles overlaps).
PARTS = (
    ("catch-up request (the lane script)", ("catch_up_lanes.py", "_catch_up_asker")),
    ("append script (EVALSHA: pack, send, reply)", ("eventstore/lua.py", "append_events")),
    ("decide (rules step)", ("shared/rules/",)),
    ("encoding events (codec)", ("shared/codec",)),
    ("loading the match state (cache, fold)", ("app/loading.py", "shared/fold.py")),
    ("idempotency", ("idempotency.py",)),
    ("auth (bearer token, sessions, players)", ("sessions.py", "players.py", "authenticat", "bearer")),
    ("abuse limits", ("abuse_limits", "shared/limits")),
    ("metrics", ("observability/metrics", "prometheus")),
    ("logging", ("logging/", "observe.py")),
    ("response shaping (views, JSON)", ("json_responses", "flask_smorest/response", "orjson")),
    ("request body load (webargs, marshmallow)", ("webargs", "marshmallow")),
    ("Flask dispatch", ("flask/", "werkzeug/")),
    ("HTTP server (gunicorn: parse, send)", ("gunicorn/", "gevent/_socketcommon")),
)
IDLE = ("Hub.run", "poll.poll")  # the gevent hub waiting for sockets


def record(seconds: float, py_spy: str, into: Path, reference: bool = False, role: str = "api",
           ) -> tuple[list[Path], int]:
    """Sample every process of ``role`` (the API's workers, or the projector's) for ``seconds`` while
    4 clients play (or post to the reference endpoint); the raw profiles and the commands served meanwhile."""
    into.mkdir(parents=True, exist_ok=True)
    context, client = multiprocessing.get_context("fork"), hit_reference if reference else play_matches
    with Stack(workers=2) as stack, ProcessPoolExecutor(4, mp_context=context) as pool:
        start = time.time() + 1.0
        futures = [pool.submit(client, stack.api_port, 100 + i, start, seconds + 5.0) for i in range(4)]
        time.sleep(3.0)  # connected and warm
        workers = cpu.children(stack.pids()["api"][0]) if role == "api" else stack.pids()[role]  # gunicorn's
        side = "reference" if reference else role
        outputs = [into / f"profile-{side}-{n}.txt" for n in range(len(workers))]
        spies = [subprocess.Popen(
            [py_spy, "record", "-p", str(pid), "-d", str(int(seconds)), "-r", "200", "-f", "raw", "-o", str(out),
             "--nonblocking"], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
            for pid, out in zip(workers, outputs)]
        for spy in spies:
            spy.wait()
        commands = sum(future.result()["commands"] for future in futures)
    # The clients ran 5 s past the sampling: count the share of their commands the samples saw.
    sampled = int(commands * seconds / (seconds + 5.0))
    print(f"{commands:,} commands played, ~{sampled:,} while sampling {len(outputs)} {role} processes")
    return outputs, sampled


def samples(paths: list[Path]) -> list[tuple[list[str], int]]:
    """(frames root first, count) of every collapsed stack in ``paths``."""
    found = []
    for path in paths:
        for line in path.read_text().splitlines():
            stack, _, count = line.rpartition(" ")
            found.append((stack.split(";"), int(count)))
    return found


def shares(stacks: list[tuple[list[str], int]]) -> tuple[int, int, collections.Counter, collections.Counter]:
    """(all samples, busy samples, busy samples by part, busy samples each frame is on)."""
    parts, frames, total, busy = collections.Counter(), collections.Counter(), 0, 0
    for stack, count in stacks:
        total += count
        if any(mark in stack[-1] for mark in IDLE):
            continue
        busy += count
        part = next((name for name, marks in PARTS if any(m in f for f in stack for m in marks)), "other")
        parts[part] += count
        for frame in {f.split(" (")[0] + " (" + f.split("site-packages/")[-1].rsplit(":", 1)[0].split("/")[-1]
                      for f in stack}:
            frames[frame] += count
    return total, busy, parts, frames


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--py-spy", default=shutil.which("py-spy", path=str(Path(sys.executable).parent)) or "py-spy")
    parser.add_argument("--into", type=Path, default=Path("var/bench"))
    parser.add_argument("--reference", action="store_true", help="profile POST /bench/reference instead")
    parser.add_argument("--role", choices=("api", "projector"), default="api", help="the processes sampled")
    args = parser.parse_args(argv)
    paths, commands = record(args.seconds, args.py_spy, args.into, args.reference, args.role)
    total, busy, parts, frames = shares(samples(paths))
    print(f"{total:,} samples, {busy:,} busy ({busy / max(total, 1):.0%}; the rest the event loop waiting)")
    print("  share   µs/command (a sample is 5 ms of one process)")
    for part, count in parts.most_common():
        print(f"  {count / busy:6.1%}  {count * 5000 / max(commands, 1):6.1f}  {part}")
    print("top frames (share of busy samples they are on):")
    for frame, count in frames.most_common(40):
        print(f"  {count / busy:6.1%}  {frame})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
