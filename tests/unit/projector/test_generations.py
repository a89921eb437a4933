"""Read-model generations: separate keys, reads that follow the pointer, an atomic switch."""

from __future__ import annotations

import threading

import fakeredis
import pytest

from services.projector.rebuild.lock_and_switch import (
    RebuildLockError,
    abandon,
    drop_generation,
    lock_rebuild,
    start_building,
    switch_to,
)
from shared import keys
from shared.readmodels import ReadModels
from shared.readmodels.generations import Pointer, read_pointer


def views_of(version: int, tag: str = "") -> dict[str, dict]:
    return {audience: {"seen_by": audience, "version": version, "tag": tag} for audience in ("A", "B", "spectator")}


def summary_of(match_id: str, status: str, version: int = 1) -> dict:
    return {"id": match_id, "status": status, "version": version}


def fill(readmodels: ReadModels, generation: int, tag: str) -> None:
    """One match, its lobby line and one scoreboard result, in ``generation``."""
    models = readmodels.at(generation)
    models.place_in_lobby("m1", "finished", 1000)
    models.write_match("m1", 5, views_of(5, tag), summary_of("m1", "finished", 5), clear_mark=False)
    models.record_result("m1", "p1", f"alice-{tag}", True, 2, 12, 4, 0)


def test_generation_zero_keeps_the_plain_key_names_and_others_add_a_suffix() -> None:
    assert keys.match_views("m1") == keys.match_views("m1", 0) == "truc:{m:m1}:views"
    assert keys.match_views("m1", 3) == "truc:{m:m1}:views:g3"
    assert keys.lobby("waiting", 3) == "truc:lobby:waiting:g3"
    assert keys.scoreboard(3) == "truc:scoreboard:g3"
    assert keys.scoreboard_matches(3) == "truc:scoreboard:matches:g3"
    assert keys.player_results("p1", 3) == "truc:{p:p1}:results:g3"
    assert keys.player_totals("p1", 3) == "truc:{p:p1}:totals:g3"
    with pytest.raises(keys.InvalidGenerationError):
        keys.match_views("m1", -1)


def test_a_generation_keeps_the_hash_tag_of_its_match_and_player() -> None:
    assert keys.match_views("m1", 7).startswith("truc:{m:m1}:")
    assert keys.player_totals("p1", 7).startswith("truc:{p:p1}:")
    assert keys.match_id_from_key(keys.match_views("m1", 7)) == "m1"
    assert keys.player_id_from_key(keys.player_results("p1", 7)) == "p1"


def test_generations_do_not_see_each_others_read_models(readmodels: ReadModels) -> None:
    fill(readmodels, 0, "old")
    fill(readmodels, 1, "new")
    assert readmodels.at(0).view("m1", "A")["tag"] == "old"
    assert readmodels.at(1).view("m1", "A")["tag"] == "new"
    assert readmodels.at(2).view("m1", "A") is None
    assert [row["name"] for row in readmodels.at(1).scoreboard()["players"]] == ["alice-new"]
    assert readmodels.at(2).scoreboard() == {"players": [], "version": 0}
    assert [s["id"] for s in readmodels.at(1).lobby("finished")] == ["m1"]
    assert readmodels.at(2).lobby("finished") == []


def test_without_a_pointer_reads_use_generation_zero(fake_redis: fakeredis.FakeRedis, readmodels: ReadModels) -> None:
    fill(readmodels, 0, "old")
    assert read_pointer(fake_redis) == Pointer(0, None, None)
    assert readmodels.view("m1", "B")["tag"] == "old"


def test_every_api_read_follows_the_pointer_on_its_next_call(
    fake_redis: fakeredis.FakeRedis, readmodels: ReadModels,
) -> None:
    fill(readmodels, 0, "old")
    fill(readmodels, 1, "new")
    readmodels.at(1).write_match("m1", 6, views_of(6, "new"), summary_of("m1", "finished", 6))
    fake_redis.hset(keys.READ_MODELS, "generation", 1)
    assert readmodels.view("m1", "A")["tag"] == "new"
    assert b'"new"' in readmodels.view_json("m1", "spectator")
    assert readmodels.summary("m1")["version"] == 6
    assert readmodels.projected_version("m1") == 6
    assert readmodels.wait_for_version("m1", 6, timeout_s=0) == 6
    assert [s["version"] for s in readmodels.lobby("finished")] == [6]
    assert readmodels.scoreboard()["players"][0]["name"] == "alice-new"
    assert readmodels.player_row("p1")["name"] == "alice-new"


def test_a_wait_for_a_version_moves_on_to_the_new_generation_when_reads_switch(
    fake_redis: fakeredis.FakeRedis, readmodels: ReadModels,
) -> None:
    readmodels.at(0).write_match("m1", 3, views_of(3), summary_of("m1", "playing", 3))
    readmodels.at(1).write_match("m1", 4, views_of(4), summary_of("m1", "playing", 4), clear_mark=False)
    switch = threading.Timer(0.05, fake_redis.hset, (keys.READ_MODELS, "generation", 1))
    switch.start()
    assert readmodels.wait_for_version("m1", 4, timeout_s=5) == 4  # generation 0 never gets there
    switch.join()


def test_a_write_to_a_generation_not_served_leaves_the_mark(
    fake_redis: fakeredis.FakeRedis, readmodels: ReadModels,
) -> None:
    fake_redis.set(keys.match_unprojected("m1"), 5)
    readmodels.at(1).write_match("m1", 5, views_of(5), summary_of("m1", "playing", 5), clear_mark=False)
    assert fake_redis.get(keys.match_unprojected("m1")) == b"5"
    readmodels.at(0).write_match("m1", 5, views_of(5), summary_of("m1", "playing", 5))
    assert fake_redis.get(keys.match_unprojected("m1")) is None


def test_the_switch_moves_reads_and_ends_the_rebuild_in_one_step(fake_redis: fakeredis.FakeRedis) -> None:
    lock_rebuild(fake_redis, "me")
    start_building(fake_redis, 1, "me")
    assert read_pointer(fake_redis) == Pointer(0, 1, "me")
    seen: set[tuple[int, int | None]] = set()
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            pointer = read_pointer(fake_redis)
            seen.add((pointer.generation, pointer.building))

    watcher = threading.Thread(target=watch)
    watcher.start()
    switch_to(fake_redis, 1, "me")
    stop.set()
    watcher.join()
    assert read_pointer(fake_redis) == Pointer(1, None, None)
    assert seen <= {(0, 1), (1, None)}  # never half switched


def test_a_second_rebuild_is_refused_unless_forced(fake_redis: fakeredis.FakeRedis) -> None:
    lock_rebuild(fake_redis, "first")
    start_building(fake_redis, 1, "first")
    with pytest.raises(RebuildLockError):
        lock_rebuild(fake_redis, "second")
    assert lock_rebuild(fake_redis, "second", force=True) == Pointer(0, 1, "first")
    assert read_pointer(fake_redis) == Pointer(0, None, "second")  # live writes to 1 stop
    with pytest.raises(RebuildLockError):
        switch_to(fake_redis, 1, "first")  # the crashed one cannot switch any more
    abandon(fake_redis, "second")
    assert read_pointer(fake_redis) == Pointer(0, None, None)


def test_dropping_a_generation_deletes_exactly_its_keys(
    fake_redis: fakeredis.FakeRedis, readmodels: ReadModels,
) -> None:
    fill(readmodels, 0, "old")
    fill(readmodels, 1, "new")
    fill(readmodels, 11, "other")
    fake_redis.hset(keys.player("p1"), "name", "alice")  # not a read model
    fake_redis.set(keys.match_unprojected("m1"), 5)  # nor is the mark
    fake_redis.hset(keys.READ_MODELS, "generation", 11)
    assert drop_generation(fake_redis, 1) == 6  # views, results, totals, lobby, ranking, matches
    assert drop_generation(fake_redis, 0) == 6
    left = {key.decode() for key in fake_redis.keys()}
    assert {key for key in left if not key.endswith(":g11")} == {
        keys.player("p1"), keys.match_unprojected("m1"), keys.READ_MODELS,
    }
    assert readmodels.view("m1", "A")["tag"] == "other"
    with pytest.raises(ValueError):
        drop_generation(fake_redis, 11)  # the one being served
