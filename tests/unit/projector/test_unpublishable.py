"""A match whose read models cannot be written is parked; the other matches, and the rebuild, go on.

The match here seats a player whose id no key may hold (``bad:id}``): its stream folds,
but no read model of it can be written. Such a stream reached Redis through an import
that checked nothing; whatever brings one, it must not stop every rebuild.
"""

from __future__ import annotations

import random

import fakeredis
from click.testing import CliRunner

from services.cli import rebuild_command as rebuild_command
from services.cli.backends import Backends
from services.projector.catchup.catching_up import fresh_views
from services.projector.catchup.projector_context import ProjectorContext
from services.projector.jobs import catch_up, rebuild_batch
from services.projector.rebuild.full_rebuild import Rebuild, RebuildOptions
from services.projector.rebuild.lock_and_switch import lock_rebuild, start_building
from shared.config import Config
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels
from shared.readmodels.generations import Pointer, read_pointer
from shared.readmodels.parked import ParkedMatches
from tests.projector_support import append_in_batches, random_match, recount

QUICK = RebuildOptions(batch_size=2, grace_seconds=0, poll_seconds=0.01)
ALICE, BOB, MALLORY = ("p1", "alice"), ("p2", "bob"), ("bad:id}", "mallory")
GOOD = ["m0", "m1", "m3"]


def store_with_one_unwritable_match(store: RedisEventStore) -> str:
    """m0, m1 and m3 between alice and bob; m2 between alice and a player whose id no key may hold."""
    for n, match_id in enumerate(["m0", "m1", "m2", "m3"]):
        players = (ALICE, MALLORY) if match_id == "m2" else (ALICE, BOB)
        append_in_batches(store, match_id, random_match(n, match_id, players), random.Random(n))
    return "m2"


def assert_only_the_good_matches_are_served(store: RedisEventStore, readmodels: ReadModels) -> None:
    for match_id in GOOD:
        assert readmodels.view(match_id, "spectator") == fresh_views(store, match_id).views["spectator"]
    assert readmodels.projected_version("m2") == 0
    board = readmodels.scoreboard(limit=100)
    assert board["version"] == len(GOOD)  # the unwritable match counted for no one, alice included
    assert {row["id"]: row["matches_played"] for row in board["players"]} == {
        player: counts["matches_played"] for player, counts in recount(store, GOOD).items()}


def assert_parked(fake_redis: fakeredis.FakeRedis, readmodels: ReadModels, match_id: str, store: RedisEventStore):
    parked = ParkedMatches(fake_redis).get(match_id)
    assert parked is not None and parked.version == store.version(match_id)
    assert "read models cannot be written" in parked.error and "bad:id}" in parked.error
    assert [record.match for record in ParkedMatches(fake_redis).current(readmodels)] == [match_id]  # /health


def test_an_inline_rebuild_parks_the_match_it_cannot_write_and_rebuilds_the_others(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, readmodels: ReadModels,
) -> None:
    unwritable = store_with_one_unwritable_match(store)

    report = Rebuild(store, readmodels, None, QUICK).run()

    assert (report.generation, report.matches) == (1, 4)
    assert read_pointer(fake_redis) == Pointer(1, None, None)
    assert_only_the_good_matches_are_served(store, readmodels)
    assert_parked(fake_redis, readmodels, unwritable, store)


def test_a_catch_up_parks_the_match_it_cannot_write_and_counts_nothing_of_it(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, readmodels: ReadModels, context: ProjectorContext,
) -> None:
    unwritable = store_with_one_unwritable_match(store)

    versions = {match_id: catch_up(match_id, context) for match_id in ["m0", "m1", "m2", "m3"]}

    assert versions == {match_id: store.version(match_id) if match_id in GOOD else 0 for match_id in versions}
    assert_only_the_good_matches_are_served(store, readmodels)
    assert_parked(fake_redis, readmodels, unwritable, store)
    assert list(store.unprojected()) == [unwritable]  # left marked: its events are not projected


def test_a_rebuild_job_parks_the_match_it_cannot_write_and_folds_the_rest_of_its_batch(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, readmodels: ReadModels, context: ProjectorContext,
) -> None:
    unwritable = store_with_one_unwritable_match(store)
    lock_rebuild(fake_redis, "me")
    start_building(fake_redis, 1, "me")

    folded = rebuild_batch(["m1", "m2", "m3"], 1, context)

    assert folded == store.version("m1") + store.version("m3")
    assert readmodels.at(1).projected_versions(["m1", "m2", "m3"]) == [store.version("m1"), 0, store.version("m3")]
    assert ParkedMatches(fake_redis).get(unwritable) is not None


def test_the_rebuild_command_completes_and_names_the_parked_match(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, readmodels: ReadModels, monkeypatch,
) -> None:
    store_with_one_unwritable_match(store)
    config = Config.from_env({"REDIS_URL": "redis://unused:6379/0"})
    monkeypatch.setattr(rebuild_command, "backends", lambda: Backends(config, fake_redis, store, readmodels, None))
    monkeypatch.setattr(rebuild_command, "connect", lambda url: fake_redis)

    result = CliRunner().invoke(rebuild_command.rebuild, ["--inline", "--grace-seconds", "0"],
                                catch_exceptions=False)

    assert result.exit_code == 0, result.output
    assert "Rebuilt generation 1: 4 match(es)" in result.output
    assert "1 match(es) parked" in result.output and "m2 at event" in result.output
    assert "bad:id}" in result.output
