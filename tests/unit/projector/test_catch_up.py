"""The catch-up job: folds everything new, idempotent, safe with concurrent workers and crashes."""

from __future__ import annotations

import random
import re
import threading

import fakeredis
import orjson
import pytest

from services.projector.catchup.catching_up import fresh_views
from services.projector.catchup.projector_context import ProjectorContext
from services.projector.jobs import catch_up
from services.projector.publishing.publish import publish
from services.projector.rebuild.match_rebuilds import rebuild_match
from shared import keys
from shared.codec import encode
from shared.eventstore import NewEvent, RedisEventStore
from shared.fold import FoldedMatch, fold
from shared.readmodels import ReadModels
from shared.readmodels.parked import ParkedMatches
from shared.rules import CancelReason, Seat, clocked, replay, view
from shared.rules.events import Event, MatchCancelled
from tests.projector_support import append_in_batches, random_match, read_model_snapshot, wipe_read_models

PLAYERS = [("p1", "alice"), ("p2", "bob"), ("p3", "carol")]


def stored_match(store: RedisEventStore, seed: int, match_id: str) -> list[Event]:
    events = random_match(seed, match_id)
    append_in_batches(store, match_id, events, random.Random(seed))
    return events


def assert_views_match_the_engine(
    readmodels: ReadModels, match_id: str, events: list[Event], store: RedisEventStore,
) -> None:
    # The clock runs from the latest event's stored time (R28).
    state = clocked(replay(events), store.read(match_id, after=len(events) - 1, limit=1)[0].at)
    for audience, seat in (("A", Seat.A), ("B", Seat.B), ("spectator", None)):
        expected = {"id": match_id, "version": len(events), **view(state, seat)}
        assert readmodels.view(match_id, audience) == expected


@pytest.mark.parametrize("seed", range(8))
def test_catching_up_after_random_appends_gives_the_engine_views(
    store: RedisEventStore, readmodels: ReadModels, context: ProjectorContext, seed: int,
) -> None:
    rng = random.Random(seed)
    events = random_match(seed, "m1")
    position = 0
    while position < len(events):
        batch = events[position:position + rng.randint(1, 9)]  # several appends per job
        store.append("m1", [encode(e) for e in batch], position)
        position += len(batch)
        assert catch_up("m1", context) == position
        assert_views_match_the_engine(readmodels, "m1", events[:position], store)
    assert list(store.unprojected()) == []
    assert readmodels.summary("m1") == fresh_views(store, "m1").summary


def test_catching_up_twice_or_from_another_worker_changes_nothing(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, context: ProjectorContext,
) -> None:
    for n in range(3):
        stored_match(store, n, f"m{n}")
        catch_up(f"m{n}", context)
    before = read_model_snapshot(fake_redis, ["m0", "m1", "m2"], ["p1", "p2"])
    for n in range(3):
        catch_up(f"m{n}", context)
        catch_up(f"m{n}", ProjectorContext(store, context.readmodels))  # a cold cache
    assert read_model_snapshot(fake_redis, ["m0", "m1", "m2"], ["p1", "p2"]) == before


def test_two_workers_at_once_end_equal_to_a_clean_rebuild(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, readmodels: ReadModels,
) -> None:
    match_ids = [f"m{n}" for n in range(4)]
    workers = [ProjectorContext(store, readmodels), ProjectorContext(store, readmodels)]
    appending = threading.Event()
    appending.set()

    def append_all() -> None:
        for n, match_id in enumerate(match_ids):
            stored_match(store, n, match_id)
        appending.clear()

    def project(context: ProjectorContext) -> None:
        while appending.is_set():
            for match_id in match_ids:
                catch_up(match_id, context)
        for match_id in match_ids:
            catch_up(match_id, context)

    threads = [threading.Thread(target=append_all)]
    threads += [threading.Thread(target=project, args=(worker,)) for worker in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    concurrent = read_model_snapshot(fake_redis, match_ids, ["p1", "p2"])

    wipe_read_models(fake_redis, match_ids, ["p1", "p2"])
    clean = ProjectorContext(store, readmodels)
    for match_id in match_ids:
        rebuild_match(match_id, clean)
    assert read_model_snapshot(fake_redis, match_ids, ["p1", "p2"]) == concurrent
    assert readmodels.scoreboard()["version"] == len(match_ids)


class CrashingReadModels(ReadModels):
    """Read models whose process dies right before the views are written."""

    def write_match(self, *args, **kwargs) -> bool:
        raise ConnectionError("the worker died here")


def test_a_crash_before_the_views_are_written_is_redone_without_counting_twice(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, readmodels: ReadModels,
) -> None:
    stored_match(store, 5, "m1")
    with pytest.raises(ConnectionError):
        catch_up("m1", ProjectorContext(store, CrashingReadModels(fake_redis)))
    assert list(store.unprojected()) == ["m1"]  # the sweep will find it
    assert readmodels.scoreboard()["version"] == 1  # results were recorded first

    catch_up("m1", ProjectorContext(store, readmodels))
    assert list(store.unprojected()) == []
    assert {row["matches_played"] for row in readmodels.scoreboard()["players"]} == {1}
    assert readmodels.summary("m1") == fresh_views(store, "m1").summary


def test_a_crashed_job_in_a_surviving_worker_is_redone_by_its_next_job(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, readmodels: ReadModels,
) -> None:
    stored_match(store, 6, "m1")
    worker = ProjectorContext(store, CrashingReadModels(fake_redis))
    with pytest.raises(ConnectionError):
        catch_up("m1", worker)
    worker.readmodels = readmodels  # the connection is back; the fold cache is unchanged
    catch_up("m1", worker)
    assert readmodels.summary("m1") == fresh_views(store, "m1").summary


def test_a_slow_worker_cannot_move_the_views_or_the_lobby_backwards(
    store: RedisEventStore, readmodels: ReadModels, context: ProjectorContext,
) -> None:
    events = stored_match(store, 7, "m1")
    slow = fold(FoldedMatch("m1"), store.read("m1", after=0, limit=3))  # folded when 3 were stored
    catch_up("m1", context)
    assert not publish(readmodels, slow, relist=True)  # ...and written late
    assert_views_match_the_engine(readmodels, "m1", events, store)
    assert [s["id"] for s in readmodels.lobby("finished")] == ["m1"]
    assert readmodels.lobby("playing") == []


def test_nothing_new_still_clears_a_mark_left_behind(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, context: ProjectorContext,
) -> None:
    events = stored_match(store, 8, "m1")
    catch_up("m1", context)
    fake_redis.set(keys.match_unprojected("m1"), len(events))  # e.g. a duplicate mark
    assert catch_up("m1", context) == len(events)
    assert list(store.unprojected()) == []


def test_a_match_longer_than_a_page_is_folded_whole(
    store: RedisEventStore, readmodels: ReadModels,
) -> None:
    events = stored_match(store, 9, "m1")
    assert catch_up("m1", ProjectorContext(store, readmodels, page_size=7)) == len(events)
    assert_views_match_the_engine(readmodels, "m1", events, store)


def test_rebuilding_a_match_rewrites_its_views_from_the_stream(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, readmodels: ReadModels,
    context: ProjectorContext,
) -> None:
    events = stored_match(store, 10, "m1")
    catch_up("m1", context)
    fake_redis.hset(keys.match_views("m1"), "A", orjson.dumps({"corrupt": True}))
    assert rebuild_match("m1", context) == len(events)
    assert_views_match_the_engine(readmodels, "m1", events, store)
    assert rebuild_match("unknown", context) == 0


def test_the_lobby_follows_a_match_through_its_statuses(
    store: RedisEventStore, readmodels: ReadModels, context: ProjectorContext,
) -> None:
    events = random_match(11, "m1")

    def lobby() -> dict[str, list[str]]:
        return {status: [m["id"] for m in readmodels.lobby(status)] for status in keys.LOBBY_STATUSES}

    store.append("m1", [encode(events[0])], 0)  # created
    catch_up("m1", context)
    assert lobby() == {"waiting": ["m1"], "playing": [], "finished": [], "cancelled": []}
    store.append("m1", [encode(e) for e in events[1:3]], 1)  # joined and dealt
    catch_up("m1", context)
    assert lobby() == {"waiting": [], "playing": ["m1"], "finished": [], "cancelled": []}
    store.append("m1", [encode(e) for e in events[3:]], 3)
    catch_up("m1", context)
    assert lobby() == {"waiting": [], "playing": [], "finished": ["m1"], "cancelled": []}


def test_a_cancelled_match_leaves_the_lobby_for_the_cancelled_list_and_never_counts(
    store: RedisEventStore, readmodels: ReadModels, context: ProjectorContext,
) -> None:
    created = random_match(13, "m1")[0]
    store.append("m1", [encode(created)], 0)
    catch_up("m1", context)
    store.append("m1", [encode(MatchCancelled(CancelReason.EXPIRED))], 1)
    catch_up("m1", context)
    assert readmodels.lobby("waiting") == [] and [m["id"] for m in readmodels.lobby("cancelled")] == ["m1"]
    assert readmodels.summary("m1")["status"] == "cancelled"
    assert readmodels.view("m1", "A")["ended_by"] == "expired"
    assert readmodels.scoreboard()["version"] == 0


def test_the_scoreboard_counts_every_finished_match_once(
    store: RedisEventStore, readmodels: ReadModels,
) -> None:
    rng = random.Random(12)
    expected: dict[str, list[int]] = {pid: [0, 0, 0, 0, 0] for pid, _ in PLAYERS}
    for n in range(12):
        players = tuple(rng.sample(PLAYERS, 2))
        events = random_match(100 + n, f"m{n}", players)
        append_in_batches(store, f"m{n}", events, rng)
        for result in fresh_views(store, f"m{n}").results:
            for index, value in enumerate((1, result.won, result.rounds_won,
                                           result.points_for, result.points_against)):
                expected[result.player_id][index] += int(value)
        for _ in range(2):  # a repeated job, on a worker with a cold cache
            catch_up(f"m{n}", ProjectorContext(store, readmodels))
    board = readmodels.scoreboard()
    assert board["version"] == 12
    got = {row["id"]: [row["matches_played"], row["matches_won"], row["rounds_won"],
                       row["points_for"], row["points_against"]] for row in board["players"]}
    assert got == {pid: totals for pid, totals in expected.items() if totals[0]}


def test_a_seat_view_never_shows_the_other_seats_unplayed_cards(
    store: RedisEventStore, readmodels: ReadModels, context: ProjectorContext,
) -> None:
    for seed in range(6):
        match_id, events, rng = f"m{seed}", random_match(seed, f"m{seed}"), random.Random(seed)
        for version in append_in_batches(store, match_id, events, rng):
            catch_up(match_id, context)
            state = replay(events[:version])
            if state.round is None:
                continue
            for audience, hidden in (("A", [Seat.B]), ("B", [Seat.A]), ("spectator", [Seat.A, Seat.B])):
                current_round = orjson.dumps(readmodels.view(match_id, audience)["round"]).decode()
                cards = set(re.findall(r"\b(?:7|8|9|10|J|Q|K|A)[SHDC]\b", current_round))
                for seat in hidden:
                    assert not cards & set(state.round.hand(seat)), (match_id, version, audience)


def test_an_unreadable_event_parks_the_match_and_keeps_the_mark(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, context: ProjectorContext,
) -> None:
    store.append("m1", [NewEvent("from_the_future", {"x": 1})], 0)
    assert catch_up("m1", context) == 0
    assert list(store.unprojected()) == ["m1"]
    parked = ParkedMatches(fake_redis).get("m1")
    assert parked is not None and parked.version == 1 and "UnknownEventError" in parked.error
