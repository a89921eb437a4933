"""An archived match's places in the lists move to cold records, and every list reads as before.

Real redis-server: the lists' sorted sets and their cold records, read by the Redis adapter
(``LobbyLists``) merged by (creation time, id) as ZREVRANGE orders them.
"""
from __future__ import annotations

import random

import orjson
import pytest
import redis

from services.projector.catchup.catching_up import catch_up
from services.projector.catchup.projector_context import ProjectorContext
from shared import keys
from shared.archive.archiving import Archiver
from shared.archive.memory import InMemoryArchive
from shared.eventstore import RedisEventStore
from shared.eventstore.schema import iso_from_ms, ms_from_iso
from shared.readmodels import ReadModels, retiring
from shared.readmodels.cold_lists import DAY_MS, LOBBY_SPAN_MS, PLAYER_SPAN_MS, chill, cold_keys, newest_first
from shared.readmodels.lobby_lists import LobbyLists
from tests.archiver_support import ENDED_AT, HOUR_MS, finished_match

PLAYERS = ("p1", "p2", "p3", "p4")
START_MS = 1_700_000_000_000


def summaries(count: int) -> dict[str, dict]:
    """Ended matches over five days, some created at the very same ms (ties), some private."""
    rng = random.Random(11)
    lines = {}
    for n in range(count):
        match_id = f"m{rng.randrange(10**6):06d}x{'y' * rng.randrange(3)}"  # ids of three lengths
        created_at = START_MS + rng.randrange(5) * DAY_MS + rng.randrange(4) * 1000
        a, b = rng.sample(PLAYERS, 2)
        lines[match_id] = {"id": match_id, "status": rng.choice(("finished", "finished", "cancelled")),
                           "created_at": iso_from_ms(created_at), "private": rng.random() < 0.2,
                           "players": {"A": {"id": a}, "B": {"id": b}}, "n": n}
    return lines


def listed(client: redis.Redis, lines: dict[str, dict], archived: dict[str, dict]) -> dict:
    """Every list, as the lobby and each player see it: pages of several sizes, and paged on by ``after``."""
    lists = LobbyLists(client, 0, archived_summary=archived.get)
    answers = {}
    for status in ("finished", "cancelled"):
        for limit in (1, 3, 7, 200):
            answers["lobby", status, limit] = lists.public(status, limit)
        for player in PLAYERS:
            for hide in (False, True):
                answers[player, status, hide] = lists.of_player(player, status, 200, hide)
                pages, after = [], None
                while page := lists.of_player(player, status, 4, hide, after=after):
                    pages.append(page)
                    after = page[-1]["id"]
                answers[player, status, hide, "pages"] = pages
    return answers


def archive_lines(client: redis.Redis, lines: dict[str, dict], match_ids: list[str]) -> dict[str, dict]:
    """Take the matches' views out and move their list places to the cold records, as the archiver does."""
    for match_id in match_ids:
        client.delete(keys.match_views(match_id))
        players = [seat["id"] for seat in lines[match_id]["players"].values()]
        assert retiring.chill_lists(client, match_id, players, [0]) == 3
    return {match_id: lines[match_id] for match_id in match_ids}


def test_every_list_reads_the_same_with_some_or_all_of_its_matches_cold(redis_client: redis.Redis) -> None:
    lines = summaries(80)
    lists = LobbyLists(redis_client, 0)
    for match_id, line in lines.items():
        redis_client.hset(keys.match_views(match_id), "summary", orjson.dumps(line))
        lists.place(match_id, line["status"], _ms(line),
                    [seat["id"] for seat in line["players"].values()])
    before = listed(redis_client, lines, {})
    assert sum(len(page) for page in before["p1", "finished", False, "pages"]) == len(before["p1", "finished", False])
    order = sorted(lines)
    random.Random(3).shuffle(order)
    archived = archive_lines(redis_client, lines, order[:50])
    assert listed(redis_client, lines, archived) == before
    archived |= archive_lines(redis_client, lines, order[50:])
    assert listed(redis_client, lines, archived) == before
    assert not redis_client.exists(keys.lobby("finished"), keys.lobby("cancelled"))  # every member moved


def test_moving_again_is_harmless_and_each_record_is_kept_once(redis_client: redis.Redis) -> None:
    lobby = keys.lobby("finished")
    redis_client.zadd(lobby, {"m1": START_MS, "m2": START_MS, "m3": START_MS + DAY_MS})
    assert [chill(redis_client, lobby, m, LOBBY_SPAN_MS) for m in ("m1", "m2", "m3", "m1", "m9")] == [
        True, True, True, False, False]
    assert list(newest_first(redis_client, lobby, LOBBY_SPAN_MS)) == [
        (START_MS + DAY_MS, b"m3"), (START_MS, b"m2"), (START_MS, b"m1")]
    assert len(cold_keys(redis_client, lobby)) == 3  # the days' set and one string a day
    assert redis_client.zcard(keys.cold_list_days(lobby)) == 2


def test_a_match_listed_again_after_it_went_cold_is_listed_once(redis_client: redis.Redis) -> None:
    lines = summaries(6)
    match_id, line = next(iter(lines.items()))
    players = [seat["id"] for seat in line["players"].values()]
    LobbyLists(redis_client, 0).place(match_id, line["status"], _ms(line), players)
    archive_lines(redis_client, lines, [match_id])
    redis_client.hset(keys.match_views(match_id), "summary", orjson.dumps(line))  # restored: back in Redis
    LobbyLists(redis_client, 0).place(match_id, line["status"], _ms(line), players)
    lists = LobbyLists(redis_client, 0, archived_summary={match_id: line}.get)
    assert lists.of_player(players[0], line["status"]) == [line]
    assert list(newest_first(redis_client, keys.player_matches(players[0], line["status"]), PLAYER_SPAN_MS))


@pytest.mark.parametrize("step", ("left", "none"))
def test_an_archiver_that_died_before_moving_the_lists_moves_them_on_its_rerun(
        redis_client: redis.Redis, step: str) -> None:
    finished_match(redis_client, "m1")
    listed_before = {key: redis_client.zrange(key, 0, -1) for key in _lists("m1a", "m1b")}
    assert sum(len(members) for members in listed_before.values()) == 3

    def stop(reached: str) -> None:
        if reached == step:
            raise RuntimeError(reached)

    archive, clock = InMemoryArchive(), (lambda: ENDED_AT + 2 * HOUR_MS)
    try:
        Archiver(redis_client, archive, HOUR_MS, clock=clock, stop=stop).archive_one("m1")
    except RuntimeError:
        assert sum(redis_client.zcard(key) for key in listed_before) == 3  # left, the lists not moved yet
    for _ in range(2):
        assert Archiver(redis_client, archive, HOUR_MS, clock=clock).archive_one("m1").result == "already"
    assert sum(redis_client.zcard(key) for key in listed_before) == 0
    cold = {key: list(newest_first(redis_client, key, LOBBY_SPAN_MS if "lobby" in key else PLAYER_SPAN_MS))
            for key in listed_before if listed_before[key]}
    assert [[match_id for _, match_id in records] for records in cold.values()] == [[b"m1"]] * 3
    assert redis_client.zscore(keys.ARCHIVE_DUE, "m1") is None


def _lists(*players: str) -> list[str]:
    return [*(keys.lobby(s) for s in ("finished", "cancelled")),
            *(keys.player_matches(p, s) for p in players for s in ("finished", "cancelled"))]


def _ms(line: dict) -> int:
    return int(ms_from_iso(line["created_at"]))


def test_a_late_catch_up_of_an_archived_match_counts_nothing_twice_and_lists_it_once(
        redis_client: redis.Redis) -> None:
    finished_match(redis_client, "m1")
    models = ReadModels(redis_client)
    board = models.scoreboard()
    assert redis_client.hexists(keys.player_results("m1a"), "m1")
    archiver = Archiver(redis_client, InMemoryArchive(), HOUR_MS, clock=lambda: ENDED_AT + 2 * HOUR_MS)
    assert archiver.archive_one("m1").result == "archived"
    catch_up("m1", ProjectorContext(RedisEventStore(redis_client), models))  # its stream is gone: nothing folds
    assert models.scoreboard() == board
    assert not redis_client.exists(keys.player_results("m1a"))  # its cold record is the guard now
    assert not any(redis_client.exists(key) for key in _lists("m1a", "m1b"))  # nothing listed hot again
    lobby = list(newest_first(redis_client, keys.lobby("finished"), LOBBY_SPAN_MS))
    assert [match_id for _, match_id in lobby] == [b"m1"]
