"""APPEND_ACK=replica on a Redis Cluster of three masters with a replica each: a master killed
under load loses no acknowledged event, the API answers again within seconds, and the read
models and the audit hold; an append no replica confirms is a 503 NOT_DURABLE whose retry
answers what was recorded."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from redis import RedisError
from redis.crc import key_slot

from services.cli import truc
from services.cluster import LoopbackCluster
from shared import keys
from shared.eventstore import RedisEventStore
from tests.reliability.failover_load import Load
from tests.reliability.invariants import read_model_differences, wait_projected
from tests.reliability.play import act, new_match, register, view
from tests.reliability.stack import Stack

RECOVERY_SECONDS = 15.0  # a liveness bound for the API to answer on the killed master again (a figure: recovered_s)


@pytest.fixture
def cluster_stack(tmp_path: Path) -> Iterator[tuple[LoopbackCluster, Stack]]:
    """The API and two projector workers on a cluster of three masters with a replica each."""
    cluster = LoopbackCluster(tmp_path / "cluster", replicas=1, node_timeout_ms=1000).start()
    stack = Stack(tmp_path, env={"APPEND_ACK": "replica", "APPEND_ACK_TIMEOUT_MS": "500"})
    stack.env.update(REDIS_URL=cluster.url, QUEUE_URL=stack.server.url)
    try:
        stack.start(workers=2)
        yield cluster, stack
    finally:
        stack.close()
        cluster.stop()


def test_an_append_no_replica_confirms_is_not_durable_and_its_retry_answers_what_was_recorded(
    cluster_stack: tuple[LoopbackCluster, Stack],
) -> None:
    cluster, stack = cluster_stack
    alice, bob = register(stack.http), register(stack.http)
    match_id = new_match(stack.http, alice, bob)
    seen = view(stack.http, match_id, alice.token, min_version=2)
    actor = alice if seen["legal_actions"] else bob
    action = (seen if actor is alice else view(stack.http, match_id, bob.token))["legal_actions"][0]
    replica = cluster.replica_of(cluster.master_of(keys.match_events(match_id)))
    cluster.pause(replica)
    try:
        refused = act(stack.http, match_id, actor, action, key="once")
    finally:
        cluster.pause(replica, paused=False)
    assert refused.status == 503 and refused.body["error"] == "NOT_DURABLE", refused.body
    assert refused.headers["retry-after"] == "1"
    retried = act(stack.http, match_id, actor, action, key="once")
    assert retried.status == 200, retried.body
    store = RedisEventStore(cluster.client())
    assert store.version(match_id) == retried.body["version"]  # recorded once, answered on the retry
    assert [e.type for e in store.read(match_id)][-len(retried.body["events"]):] == [
        e["type"] for e in retried.body["events"]]


# One replica each, run as an operator's supervisor would: once the killed master's replica is
# promoted (every live node's CLUSTER NODES says so; never sooner, or the old master would come
# back as master with its AOF and its replica resync from it), the killed node is restarted from
# its own data dir and nodes.conf and rejoins as the promoted master's replica. Until it has synced,
# the promoted master has no replica to confirm an append: 503 NOT_DURABLE, then answers again.
def test_a_master_killed_under_load_loses_no_acknowledged_append(
    cluster_stack: tuple[LoopbackCluster, Stack], figures: dict,
) -> None:
    cluster, stack = cluster_stack
    load = Load(stack.url, threads=4).start()
    time.sleep(3)
    victim, victims, killed_at = _kill_busiest_master(cluster, load)
    promoted, rejoined = _supervise(cluster, victim, killed_at)
    deadline = killed_at + RECOVERY_SECONDS
    while time.monotonic() < deadline and _recovered(load, victims, killed_at) is None:
        time.sleep(0.1)
    time.sleep(2)  # more play on the promoted replica, confirmed by the restarted node
    load.join()
    recovered = _recovered(load, victims, killed_at)
    client = cluster.client()
    lost = _lost(RedisEventStore(client), load)
    figures.update(acknowledged=len(load.acked), lost=len(lost), promoted_s=round(promoted, 2),
                   rejoined_s=round(rejoined, 2), recovered_s=recovered and round(recovered, 2),
                   refused=dict(load.refused))
    assert lost == []
    assert recovered is not None and recovered < RECOVERY_SECONDS, recovered
    wait_projected(client, load.match_ids, timeout=30)
    assert read_model_differences(client, load.match_ids) == []
    audit = CliRunner().invoke(truc, ["audit", "--all"], env=stack.env, catch_exceptions=False)
    assert audit.exit_code == 0, audit.output


def _supervise(cluster: LoopbackCluster, victim: tuple[int, int], killed_at: float) -> tuple[float, float]:
    """Wait for the killed master's replica to be promoted, then restart the killed node and wait
    for it to be the new master's synced replica; seconds from the kill to each."""
    port, replica = victim
    deadline = killed_at + 15
    while not cluster.promoted(replica):
        assert time.monotonic() < deadline, f"replica {replica} not promoted within 15 s"
        time.sleep(0.05)
    promoted = time.monotonic() - killed_at
    cluster.restart(port)
    while not _synced(cluster, port, replica):
        assert time.monotonic() < deadline, f"node {port} not a synced replica within 15 s"
        time.sleep(0.05)
    return promoted, time.monotonic() - killed_at


def _synced(cluster: LoopbackCluster, port: int, master_port: int) -> bool:
    try:
        return cluster.replica_in_sync(port, master_port)
    except RedisError:
        return False


def _kill_busiest_master(cluster: LoopbackCluster, load: Load) -> tuple[tuple[int, int], set[int], float]:
    """SIGKILL the master serving most of the matches being played: its port and its replica's,
    the hash slots it served, when."""
    served: dict[int, set[str]] = {}
    for match_id in list(load.match_ids):
        served.setdefault(cluster.master_of(keys.match_events(match_id)), set()).add(match_id)
    playing = set(load.playing.values())
    port = max((p for p in served if p != cluster.ports[0]), key=lambda p: len(served[p] & playing))
    replica, slots = cluster.replica_of(port), cluster.slots_of(port)
    cluster.kill(port)
    return (port, replica), slots, time.monotonic()


def _recovered(load: Load, victims: set[int], killed_at: float) -> float | None:
    """Seconds from the kill to the first 2xx action sent after it on a match in the killed master's
    slots: a match played before the kill or one created since (a client's match may end right then)."""
    after = [a.answered_at - killed_at for a in list(load.acked)
             if a.sent_at > killed_at and key_slot(keys.match_events(a.match_id).encode()) in victims]
    return min(after, default=None)


def _lost(store: RedisEventStore, load: Load) -> list[tuple[str, int]]:
    """Acknowledged actions whose events the stream does not hold (any more), as (match, version)."""
    lost = []
    for acked in load.acked:
        first = acked.version - len(acked.types)
        stored = [event.type for event in store.read(acked.match_id, after=first, limit=len(acked.types))]
        if stored != acked.types:
            lost.append((acked.match_id, acked.version))
    return lost
