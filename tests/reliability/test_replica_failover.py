"""APPEND_ACK=replica on a Redis Cluster of three masters with a replica each: a master killed
under load loses no acknowledged event, the API answers again within seconds, and the read
models and the audit hold; an append no replica confirms is a 503 NOT_DURABLE whose retry
answers what was recorded."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from redis import RedisError

from services.cli import truc
from services.cluster import LoopbackCluster
from shared import keys
from shared.eventstore import RedisEventStore
from tests.e2e.http import Reply
from tests.reliability.failover_load import PAUSE, Load
from tests.reliability.invariants import read_model_differences, wait_projected
from tests.reliability.play import Player, act, new_match, register, view
from tests.reliability.stack import Stack

# A liveness bound for the API to answer on the killed master's slots once the node has rejoined
# (the figure recovered_s counts from the kill).
RECOVERY_SECONDS = 15.0


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
    match_id, actor, action = _first_move(stack, cluster)
    replica = cluster.replica_of(cluster.master_of(keys.match_events(match_id)))
    cluster.pause(replica)
    try:
        refused = act(stack.http, match_id, actor, action, key="once")
    finally:
        cluster.pause(replica, paused=False)
    assert refused.status == 503 and refused.body["error"] == "NOT_DURABLE", refused.body
    assert refused.headers["retry-after"] == "1"
    retried, _ = _retry_until_answered(stack, match_id, actor, action, key="once", seconds=10)
    assert retried.status == 200, retried.body
    _assert_recorded_once(RedisEventStore(cluster.client()), match_id, retried)


# One replica each, run as an operator's supervisor would: once the killed master's replica is
# promoted (every live node's CLUSTER NODES says so; never sooner, or the old master would come
# back as master with its AOF and its replica resync from it), the killed node is restarted from
# its own data dir and nodes.conf and rejoins as the promoted master's replica. Until it has synced,
# the promoted master has no replica to confirm an append: 503 NOT_DURABLE, then answers again.
# The killed master is the one of a probe match of the test's own (never the entry node), so the
# recovery is measured on a move known to be waiting, whatever the load's clients are playing.
def test_a_master_killed_under_load_loses_no_acknowledged_append(
    cluster_stack: tuple[LoopbackCluster, Stack], figures: dict,
) -> None:
    cluster, stack = cluster_stack
    load = Load(stack.url, threads=4).start()
    match_id, actor, action = _first_move(stack, cluster, avoid=cluster.ports[0])
    time.sleep(3)
    port = cluster.master_of(keys.match_events(match_id))
    replica = cluster.replica_of(port)
    cluster.kill(port)
    killed_at = time.monotonic()
    promoted, rejoined = _supervise(cluster, port, replica)
    answered, answered_at = _retry_until_answered(stack, match_id, actor, action, key="probe",
                                                  seconds=RECOVERY_SECONDS)
    time.sleep(2)  # more play on the promoted replica, confirmed by the restarted node
    load.join()
    client = cluster.client()
    lost = _lost(RedisEventStore(client), load)
    figures.update(acknowledged=len(load.acked), lost=len(lost), promoted_s=round(promoted - killed_at, 2),
                   rejoined_s=round(rejoined - killed_at, 2), recovered_s=round(answered_at - killed_at, 2),
                   refused=dict(load.refused))
    assert lost == []
    assert answered.status == 200, answered.body  # the API answers on the killed master's slots again
    _assert_recorded_once(RedisEventStore(client), match_id, answered)
    wait_projected(client, load.match_ids, timeout=30)
    assert read_model_differences(client, load.match_ids) == []
    audit = CliRunner().invoke(truc, ["audit", "--all"], env=stack.env, catch_exceptions=False)
    assert audit.exit_code == 0, audit.output


def _first_move(stack: Stack, cluster: LoopbackCluster, avoid: int | None = None,
                ) -> tuple[str, Player, dict[str, Any]]:
    """A new match of two new players (whose stream is not served by the node on ``avoid``), the
    player whose turn it is and a legal action of theirs."""
    alice, bob = register(stack.http), register(stack.http)
    match_id = new_match(stack.http, alice, bob)
    while cluster.master_of(keys.match_events(match_id)) == avoid:
        match_id = new_match(stack.http, alice, bob)
    seen = view(stack.http, match_id, alice.token, min_version=2)
    actor = alice if seen["legal_actions"] else bob
    action = (seen if actor is alice else view(stack.http, match_id, bob.token))["legal_actions"][0]
    return match_id, actor, action


def _retry_until_answered(stack: Stack, match_id: str, actor: Player, action: dict[str, Any], key: str,
                          seconds: float) -> tuple[Reply, float]:
    """Send the action with one Idempotency-Key every PAUSE while it is answered 5xx, as a client
    following Retry-After would, for up to ``seconds``: the last reply and when it came."""
    deadline = time.monotonic() + seconds
    while True:
        reply = act(stack.http, match_id, actor, action, key=key)
        if reply.status < 500 or time.monotonic() > deadline:
            return reply, time.monotonic()
        time.sleep(PAUSE)


def _assert_recorded_once(store: RedisEventStore, match_id: str, reply: Reply) -> None:
    """The stream ends with the events the reply answered, at its version: recorded once."""
    assert store.version(match_id) == reply.body["version"]
    assert [e.type for e in store.read(match_id)][-len(reply.body["events"]):] == [
        e["type"] for e in reply.body["events"]]


def _supervise(cluster: LoopbackCluster, port: int, replica: int) -> tuple[float, float]:
    """Wait for the killed master's replica to be promoted (15 s), then restart the killed node and
    wait for it to be the new master's synced replica (15 s more): when each happened."""
    deadline = time.monotonic() + 15
    while not cluster.promoted(replica):
        assert time.monotonic() < deadline, f"replica {replica} not promoted within 15 s"
        time.sleep(0.05)
    promoted = time.monotonic()
    cluster.restart(port)
    deadline = time.monotonic() + 15
    while not _synced(cluster, port, replica):
        assert time.monotonic() < deadline, f"node {port} not a synced replica within 15 s of its restart"
        time.sleep(0.05)
    return promoted, time.monotonic()


def _synced(cluster: LoopbackCluster, port: int, master_port: int) -> bool:
    try:
        return cluster.replica_in_sync(port, master_port)
    except RedisError:
        return False


def _lost(store: RedisEventStore, load: Load) -> list[tuple[str, int]]:
    """Acknowledged actions whose events the stream does not hold (any more), as (match, version)."""
    lost = []
    for acked in load.acked:
        first = acked.version - len(acked.types)
        stored = [event.type for event in store.read(acked.match_id, after=first, limit=len(acked.types))]
        if stored != acked.types:
            lost.append((acked.match_id, acked.version))
    return lost
