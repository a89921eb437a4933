"""``make bench``: the load benchmarks, each beside a baseline measured in the same run.

1. command throughput of whole matches by N client processes, beside the reference
   endpoint (a marshmallow load and one atomic stream append) on the same stack;
2. command latency near event ~2,000 of one long match, beside near event ~20;
3. a read-model rebuild of >= 200,000 events with 1 and 2 workers, beside a plain fold;
4. projection lag under steady load, beside the actions' own latency;
5.-6. timeout lateness and idle CPU with thousands of running clocks (``bench.clocks``);
7. 5,000 live spectator streams: a move's delivery, throughput, memory, Redis connections;
8. a backlog of live catch-ups drained through the lanes by 2 workers, beside 1;
9. appends acknowledged by a replica (``APPEND_ACK=replica``) beside the master alone, on a cluster;
10. the cost of metrics and logs: the full command path with them on, beside ``METRICS=off``;
11. replay at the last version of the longest match R33 allows, beside version 10 (``bench.replays``).

Every figure is the median of several runs with the min and max. Each section starts its
own stack (redis-server with AOF everysec, gunicorn, projector workers) on 127.0.0.1 and
stops it. Prints a table and writes JSON (``var/bench/results.json`` by default).
"""
from __future__ import annotations

import argparse
import os
import platform
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson

from services.embedded_redis import redis_server_binary

from . import (
    api_scaling,
    catch_up,
    clocks,
    durability,
    lag,
    long_match,
    observability,
    projector,
    replays,
    streams,
    throughput,
)
from .stats import Figure, table

SECTIONS = ("throughput", "scaling", "long_match", "projector", "lag", "clocks", "observability", "streams",
            "catch_up", "durability", "replays")


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else ""
    redis_version = subprocess.run([redis_server_binary(), "--version"], capture_output=True, text=True).stdout
    return {
        "nproc": os.cpu_count(), "cpu": model, "python": platform.python_version(),
        "redis_server": redis_version.strip(), "platform": platform.platform(),
        "loadavg_at_start": os.getloadavg(),
    }


def run(sections: list[str], quick: bool) -> tuple[list[Figure], dict[str, Any]]:
    """Run the sections asked for; the table's lines and the raw results."""
    figures: list[Figure] = []
    raw: dict[str, Any] = {}
    plan = {
        "throughput": lambda: throughput.measure(  # windows of >= 2,000 commands each, >= the seconds
            clients=4, seconds=2.0 if quick else 3.0, windows=throughput.WINDOWS, warmup=1.5 if quick else 3.0),
        "scaling": lambda: api_scaling.measure(clients=4, seconds=2.0 if quick else 3.0, runs=2 if quick else 3),
        "long_match": lambda: long_match.measure(runs=3, batch=40 if quick else 60),
        "projector": lambda: projector.measure(events=200_000, runs=2 if quick else 3),
        "lag": lambda: lag.measure(clients=4, rate=25.0, seconds=4.0 if quick else 8.0, runs=3),
        "clocks": lambda: clocks.measure(window_s=5.0 if quick else 10.0, runs=1 if quick else 2),
        "observability": lambda: observability.measure(
            clients=4, seconds=2.0 if quick else 4.0, runs=2 if quick else 5, warmup=1.0 if quick else 2.0),
        "streams": lambda: streams.measure(viewers=5000, seconds=3.0 if quick else 4.0, runs=2 if quick else 4),
        "catch_up": lambda: catch_up.measure(matches=1000 if quick else 2000, runs=2 if quick else 3),
        "durability": lambda: durability.measure(clients=4, seconds=2.0 if quick else 4.0, runs=3),
        "replays": lambda: replays.measure(runs=3, samples=30 if quick else 60),
    }
    modules = {"throughput": throughput, "scaling": api_scaling, "long_match": long_match, "projector": projector,
               "lag": lag, "clocks": clocks, "observability": observability, "streams": streams, "catch_up": catch_up,
               "durability": durability, "replays": replays}
    for name in sections:
        started = time.monotonic()
        print(f"... {name}", file=sys.stderr, flush=True)
        raw[name] = plan[name]()
        raw[name]["seconds_taken"] = round(time.monotonic() - started, 1)
        figures += modules[name].figures(raw[name])
    return figures, raw


def details(raw: dict[str, Any]) -> str:
    """What a section prints beyond its table lines (figure 1: window by window)."""
    return "\n".join(throughput.details(raw[name]) for name in raw if name == "throughput")


def _cpu_per_command(phase: throughput.Phase) -> dict[str, float]:
    """Each role's CPU milliseconds per command over the phase."""
    return {role: round(phase.cpu_ms((role,)), 3) for role in phase.cpu}


def _json_ready(raw: dict[str, Any]) -> dict[str, Any]:
    """The throughput phases carry every latency sample: keep the summaries only."""
    ready = dict(raw)
    for section, sides in (("throughput", ("full", "reference")), ("observability", ("on", "off"))):
        if section not in ready:
            continue
        result = dict(ready[section])
        for side in sides:
            result[side] = [{
                "window": n, "started": round(p.started, 2), "commands": p.commands, "matches": p.matches,
                "seconds": p.seconds, "rate": round(p.rate, 1), "drain_s": round(p.drain_s, 2),
                "cpu_s": {k: round(v, 3) for k, v in p.cpu.items()},
                "cpu_ms_per_command": _cpu_per_command(p),
                "round_trips": p.round_trips, "round_trips_per_command": round(p.per_command(p.round_trips), 3),
                "redis_commands": p.redis_commands,
                "redis_commands_per_command": round(p.per_command(p.redis_commands), 3),
                "redis_calls_per_command": {k: round(v / max(p.commands, 1), 3) for k, v in
                                            sorted(p.redis_calls.items(), key=lambda item: -item[1])},
            } for n, p in enumerate(result[side], start=1)]
        ready[section] = result
    if "scaling" in ready:
        ready["scaling"] = {**ready["scaling"], "phases": {
            str(n): [{"rate": round(p.rate, 1), "cpu_ms_per_command": _cpu_per_command(p)}
                     for p in phases] for n, phases in ready["scaling"]["phases"].items()}}
    return ready


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter windows and fewer runs")
    parser.add_argument("--json", default="var/bench/results.json", help="where to write the figures")
    parser.add_argument("--only", nargs="+", choices=SECTIONS, help="run only these sections")
    args = parser.parse_args(argv)
    # SIGTERM ends the run like Ctrl-C: every stack is stopped on the way out.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(143))
    info = machine()
    started = time.monotonic()
    figures, raw = run(list(args.only or SECTIONS), args.quick)
    info["loadavg_at_end"] = os.getloadavg()
    info["seconds_taken"] = round(time.monotonic() - started, 1)
    print(f"\nLe Truc benchmarks{' (--quick)' if args.quick else ''}: {info['nproc']} x {info['cpu']}, "
          f"Python {info['python']}, {info['redis_server'].split(' sha=')[0]}")
    print(f"median [min..max] of the runs; load average at start {info['loadavg_at_start'][0]:.2f}, "
          f"at end {info['loadavg_at_end'][0]:.2f}\n")
    print(table(figures))
    if extra := details(raw):
        print(f"\n{extra}")
    output = Path(args.json)
    output.parent.mkdir(parents=True, exist_ok=True)
    document = {"machine": info, "quick": args.quick, "figures": [f.to_json() for f in figures],
                "raw": _json_ready(raw)}
    output.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY))
    print(f"\n({info['seconds_taken']:.0f} s; figures written to {output})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
