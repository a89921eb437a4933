"""The services on a Redis Cluster of three masters: every key of a match in one slot, the
matches spread over the masters, and the API and the projector running unchanged on it
(RQ on a Redis server of its own, as QUEUE_URL says)."""

from __future__ import annotations

import random
from pathlib import Path

import fakeredis
import pytest
from redis.cluster import RedisCluster

from services.cluster import LoopbackCluster
from shared import keys
from shared.config import Config
from shared.connect import connect
from shared.eventstore import NewEvent, RedisEventStore
from tests.reliability.invariants import (
    audit_failures,
    read_model_differences,
    recount,
    scoreboard_rows,
    wait_projected,
)
from tests.reliability.play import act, new_match, pick_action, register, view
from tests.reliability.stack import Stack
from tests.unit.api.test_player_stream import Table, latest, turns


def test_each_match_keeps_its_keys_in_one_slot_and_matches_spread_over_the_masters(
    redis_cluster_client: RedisCluster,
) -> None:
    store = RedisEventStore(redis_cluster_client)
    match_ids = [f"m{n}" for n in range(30)]
    for match_id in match_ids:
        store.append(match_id, [NewEvent("Happened", {"n": 1})], 0)
    for match_id in match_ids:
        match_keys = [keys.match_events(match_id), keys.match_unprojected(match_id), keys.match_tokens(match_id),
                      keys.match_catch_up(match_id), keys.match_views(match_id), keys.match_seed(match_id)]
        assert len({redis_cluster_client.keyslot(key) for key in match_keys}) == 1
    masters = {redis_cluster_client.get_node_from_key(keys.match_events(m)).name for m in match_ids}
    assert len(masters) == 3
    assert sorted(store.unprojected()) == sorted(match_ids)  # the sweep's scan reaches every master


def test_a_cluster_url_connects_to_the_cluster_and_the_queue_must_stay_on_one_server(
    redis_cluster: LoopbackCluster,
) -> None:
    url = f"redis-cluster://127.0.0.1:{redis_cluster.ports[1]}"
    client = connect(url)
    assert isinstance(client, RedisCluster) and client.ping()
    assert len(client.get_primaries()) == 3
    with pytest.raises(ValueError, match="QUEUE_URL"):
        Config.from_env({"REDIS_URL": url})
    assert Config.from_env({"REDIS_URL": url, "QUEUE_URL": "redis://127.0.0.1:1/0"}).redis_url == url


def test_whole_matches_through_the_api_and_the_projector_on_a_cluster(
    redis_cluster: LoopbackCluster, redis_cluster_client: RedisCluster, tmp_path: Path,
) -> None:
    stack = Stack(tmp_path)
    stack.env.update(REDIS_URL=f"redis-cluster://127.0.0.1:{redis_cluster.ports[0]}", QUEUE_URL=stack.server.url)
    rng = random.Random(11)
    try:
        stack.start(workers=1)
        alice, bob = register(stack.http), register(stack.http)
        match_ids = [new_match(stack.http, alice, bob) for _ in range(2)]
        players = {"A": alice, "B": bob}
        for match_id in match_ids:
            version = 0
            while True:
                views = {seat: view(stack.http, match_id, player.token, min_version=version)
                         for seat, player in players.items()}
                chosen = pick_action(views, rng)
                if chosen is None:
                    break
                seat, action = chosen
                reply = act(stack.http, match_id, players[seat], action)
                assert reply.status == 200, reply.body
                version = reply.body["version"]
            assert views["A"]["status"] == "finished"
    finally:
        stack.close()
    wait_projected(redis_cluster_client, match_ids)
    assert read_model_differences(redis_cluster_client, match_ids) == []
    assert audit_failures(redis_cluster_client, match_ids) == {}
    assert scoreboard_rows(redis_cluster_client, [alice.id, bob.id]) == recount(redis_cluster_client, match_ids)


def test_a_players_stream_reads_their_feed_on_the_node_of_their_slot(redis_cluster_client: RedisCluster) -> None:
    table = Table(redis_cluster_client, queue_client=fakeredis.FakeRedis())  # RQ cannot run on a cluster
    alice, bob = table.register("alice"), table.register("bob")
    matches = [table.match(alice, bob) for _ in range(6)]  # alice leads in each; the matches spread over the masters
    stream = table.http.get(f"/players/{alice.id}/stream", headers=alice.headers, buffered=False)
    assert sorted(turn["match_id"] for turn in turns(next(stream.response))) == sorted(m["id"] for m in matches)
    stream.close()
    stream = table.http.get(f"/players/{bob.id}/stream", headers=bob.headers, buffered=False)
    assert turns(next(stream.response)) == []
    table.play(matches[-1]["id"], alice)
    chunk = next(stream.response)
    assert [turn["match_id"] for turn in turns(chunk)] == [matches[-1]["id"]] and latest(table, bob) in chunk.decode()
    stream.close()
