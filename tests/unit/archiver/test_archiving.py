"""Archiving one match (fakeredis, in-memory archive): what is checked, what leaves, what stays."""
from __future__ import annotations

import fakeredis
import pytest

from shared import keys
from shared.archive.archiving import Archiver
from shared.archive.due import DueMatches
from shared.archive.index import ArchiveIndex
from shared.archive.memory import InMemoryArchive
from shared.archive.port import ArchivedMatch, ArchiveUnavailableError, Receipt
from shared.codec import encode
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels, scoreboard
from shared.readmodels.cold_lists import LOBBY_SPAN_MS, newest_first
from tests.archiver_support import ENDED_AT, HOUR_MS, finished_match, match_keys
from tests.projector_support import random_match


def archiver(client: fakeredis.FakeRedis, archive: object = None, now: int = ENDED_AT + 2 * HOUR_MS) -> Archiver:
    return Archiver(client, archive or InMemoryArchive(), HOUR_MS, clock=lambda: now)


def test_a_finished_projected_match_leaves_only_its_index_entry(fake_redis: fakeredis.FakeRedis) -> None:
    version = finished_match(fake_redis, "m1")
    events = RedisEventStore(fake_redis).read("m1")
    archive = InMemoryArchive()
    outcome = archiver(fake_redis, archive).archive_one("m1")
    assert outcome.result == "archived" and outcome.size > 0
    assert match_keys(fake_redis, "m1") == {keys.match_archived("m1")}
    entry = ArchiveIndex(fake_redis).get("m1")
    assert (entry.count, entry.head, entry.finished_at) == (version, events[-1].hash, events[-1].at)
    kept = archive.get("m1")
    assert kept.events == tuple(events) and kept.seed == "seed-of-m1"
    assert DueMatches(fake_redis).due(ENDED_AT + 10 * HOUR_MS) == []


def test_the_lobby_and_the_scoreboard_keep_the_match(fake_redis: fakeredis.FakeRedis) -> None:
    finished_match(fake_redis, "m1")
    models = ReadModels(fake_redis)
    board = models.scoreboard()
    lobby = fake_redis.zrange(keys.lobby("finished"), 0, -1, withscores=True)
    archiver(fake_redis).archive_one("m1")
    assert models.scoreboard() == board
    assert fake_redis.zrange(keys.lobby("finished"), 0, -1, withscores=True) == []  # moved to the cold records
    assert [(member, float(at)) for at, member in newest_first(fake_redis, keys.lobby("finished"),
                                                               LOBBY_SPAN_MS)] == lobby
    assert not fake_redis.hexists(keys.player_results("m1a"), "m1")  # its cold record is the guard now
    assert fake_redis.scard(keys.scoreboard_matches()) == 0 and fake_redis.get(keys.scoreboard_archived()) == b"1"
    created_at = int(lobby[0][1])
    assert not models.record_result("m1", "m1a", "alice", True, 2, 12, 0, created_at)  # a late duplicate
    assert models.scoreboard() == board


def test_the_due_list_holds_a_finished_match_until_it_is_archived(fake_redis: fakeredis.FakeRedis) -> None:
    finished_match(fake_redis, "m1")
    early = archiver(fake_redis, now=ENDED_AT + HOUR_MS // 2)
    assert early.due() == []
    assert early.archive_one("m1").result == "too_recent"
    late = archiver(fake_redis)
    assert late.due() == ["m1"]
    assert [outcome.result for outcome in late.archive_due()] == ["archived"]
    assert late.due() == [] and late.archive_one("m1").result == "already"


def test_an_unfinished_or_unknown_match_stays(fake_redis: fakeredis.FakeRedis) -> None:
    store = RedisEventStore(fake_redis, clock=lambda: ENDED_AT)
    store.append("m2", [encode(e) for e in random_match(1, "m2")[:5]], 0)
    assert archiver(fake_redis).archive_one("m2").result == "unfinished"
    assert archiver(fake_redis).archive_one("nobody").result == "missing"
    assert keys.match_events("m2") in match_keys(fake_redis, "m2")


def test_an_unprojected_match_stays_whole(fake_redis: fakeredis.FakeRedis) -> None:
    finished_match(fake_redis, "m1")
    fake_redis.hset(keys.match_views("m1"), "version", 3)  # the views are behind the stream
    before = match_keys(fake_redis, "m1")
    assert archiver(fake_redis).archive_one("m1").result == "unprojected"
    assert match_keys(fake_redis, "m1") == before and ArchiveIndex(fake_redis).get("m1") is None


class _Unreachable(InMemoryArchive):
    def put(self, match: ArchivedMatch) -> Receipt:
        raise ArchiveUnavailableError("down")


class _Lossy(InMemoryArchive):
    """Keeps the match without its last event: a copy that does not verify."""

    def put(self, match: ArchivedMatch) -> Receipt:
        return super().put(ArchivedMatch(match.match_id, match.events[:-1], match.seed, match.finished_at))


@pytest.mark.parametrize(("archive", "reason"), [(_Unreachable(), "unreachable"), (_Lossy(), "verify")])
def test_a_failed_copy_deletes_nothing(fake_redis: fakeredis.FakeRedis, archive: InMemoryArchive,
                                       reason: str) -> None:
    finished_match(fake_redis, "m1")
    before = match_keys(fake_redis, "m1")
    run = archiver(fake_redis, archive)
    outcome = run.archive_one("m1")
    assert (outcome.result, outcome.reason) == ("failed", reason)
    assert match_keys(fake_redis, "m1") == before
    assert run.totals.read()[f"failed:{reason}"] == 1 and run.due() == ["m1"]


@pytest.mark.parametrize("when", ["before its script", "after its script"])
def test_a_duplicate_count_racing_the_archiver_counts_the_match_once(fake_redis: fakeredis.FakeRedis,
                                                                      monkeypatch, when: str) -> None:
    """A late duplicate of a match's projection, the archiver running all its steps in the middle of
    it (between its counted-set write and its results script, or after the script): the board's
    version and rows are what they were, and no guard of the match is left behind."""
    finished_match(fake_redis, "m1")
    models, created_at = ReadModels(fake_redis), RedisEventStore(fake_redis).read("m1")[0].at
    board = models.scoreboard()
    real_script, ran = scoreboard._record_result, []

    def script_with_the_archiver_around(*args):
        if when == "before its script" and not ran:
            ran.append(archiver(fake_redis).archive_one("m1").result)
        answer = real_script(*args)
        if when == "after its script" and not ran:
            ran.append(archiver(fake_redis).archive_one("m1").result)
        return answer
    monkeypatch.setattr(scoreboard, "_record_result", script_with_the_archiver_around)
    assert not models.record_result("m1", "m1a", "alice", True, 2, 12, 0, created_at)
    assert ran == ["archived"]
    assert models.scoreboard() == board
    assert not fake_redis.exists(keys.scoreboard_matches(), keys.player_results("m1a"))


PLAYERS = (("Ana-0123456789ab", "ana"), ("Ben_0123456789ab", "ben"))  # ids of the server's shape


def test_a_rated_match_archived_moves_its_rating_entries_to_cold_parts_and_keeps_the_ratings(
        fake_redis: fakeredis.FakeRedis) -> None:
    finished_match(fake_redis, "M-0000000001", players=PLAYERS, rated=True)
    ratings = ReadModels(fake_redis).ratings()
    served = {player: ratings.rating(player) for player, _ in PLAYERS}
    assert all(served.values())
    assert archiver(fake_redis).archive_one("M-0000000001").result == "archived"
    assert {player: ratings.rating(player) for player, _ in PLAYERS} == served
    assert not any(fake_redis.exists(keys.player_ratings(player)) for player, _ in PLAYERS)
    assert all(fake_redis.exists(keys.player_ratings_cold(player)) for player, _ in PLAYERS)
    assert fake_redis.zcard(keys.ratings_chills()) == 0


def test_no_chill_waits_in_a_generation_no_longer_kept(fake_redis: fakeredis.FakeRedis) -> None:
    fake_redis.hset(keys.READ_MODELS, "generation", 2)  # served: 2; 0 and 1 dropped by earlier rebuilds
    finished_match(fake_redis, "M-0000000001", players=PLAYERS, rated=True)
    assert archiver(fake_redis).archive_one("M-0000000001").result == "archived"
    assert not fake_redis.exists(keys.ratings_chills(0), keys.ratings_chills(1), keys.ratings_chills(2))
    assert fake_redis.exists(keys.player_ratings_cold(PLAYERS[0][0], 2))
