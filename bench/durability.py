"""The cost of ``APPEND_ACK=replica``: appends to a Redis Cluster of three masters with a
replica each, answered once a replica has them (WAIT 1) beside answered once the master has
them, in alternating runs of the same cluster (store level: the append path without HTTP)."""
from __future__ import annotations

import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from services.cluster import LoopbackCluster
from shared.eventstore import Acknowledgement, NewEvent, RedisEventStore

from .stats import Figure, Spread, percentile

MODES = {"master": Acknowledgement(), "replica": Acknowledgement(1, 500)}


def _run(cluster: LoopbackCluster, ack: Acknowledgement, clients: int, seconds: float) -> dict[str, Any]:
    """``clients`` threads appending one event at a time to their own matches for ``seconds``."""
    latencies: list[list[float]] = [[] for _ in range(clients)]
    deadline = time.monotonic() + seconds

    def client(n: int) -> None:
        store, versions = RedisEventStore(cluster.client(), ack=ack), {}
        matches = [uuid.uuid4().hex for _ in range(16)]  # spread over the masters
        while time.monotonic() < deadline:
            match_id = matches[len(latencies[n]) % len(matches)]
            started = time.perf_counter()
            versions[match_id] = store.append(match_id, [NewEvent("Bench", {"n": 1})], versions.get(match_id, 0))
            latencies[n].append(time.perf_counter() - started)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    samples = [s for per_client in latencies for s in per_client]
    return {"appends_per_s": len(samples) / seconds, "p50_ms": percentile(samples, 50) * 1000,
            "p99_ms": percentile(samples, 99) * 1000}


def measure(clients: int = 4, seconds: float = 3.0, runs: int = 3) -> dict[str, Any]:
    """Alternating runs of each mode on one cluster (its first run of each discarded: warm-up)."""
    results: dict[str, list[dict[str, Any]]] = {mode: [] for mode in MODES}
    with tempfile.TemporaryDirectory(prefix="bench-durability-") as data:
        cluster = LoopbackCluster(Path(data), replicas=1).start()
        try:
            for ack in MODES.values():
                _run(cluster, ack, clients, 1.0)
            for _ in range(runs):
                for mode, ack in MODES.items():
                    results[mode].append(_run(cluster, ack, clients, seconds))
        finally:
            cluster.stop()
    return {"clients": clients, "seconds": seconds, "runs": results}


def figures(result: dict[str, Any]) -> list[Figure]:
    """Throughput, p50 and p99 with a replica's acknowledgement, each beside the master's own."""
    runs = result["runs"]
    lines = []
    for key, name, unit, fmt in (("appends_per_s", "appends/s", "/s", ",.0f"), ("p50_ms", "append p50", "ms", ".2f"),
                                 ("p99_ms", "append p99", "ms", ".2f")):
        replica = [run[key] for run in runs["replica"]]
        master = [run[key] for run in runs["master"]]
        lines.append(Figure(f"9. {name}, APPEND_ACK=replica", Spread.of(replica), unit, Spread.of(master),
                            "APPEND_ACK=master", Spread.of([r / m for r, m in zip(replica, master)]), fmt=fmt))
    return lines
