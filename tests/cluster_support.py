"""The tests' Redis Cluster: the loopback cluster of :mod:`services.cluster` (three masters,
and a replica of each when a test asks; the benchmarks start the same one)."""
from __future__ import annotations

from services.cluster import CLUSTER_BUS_OFFSET, LoopbackCluster

__all__ = ["CLUSTER_BUS_OFFSET", "LoopbackCluster"]
