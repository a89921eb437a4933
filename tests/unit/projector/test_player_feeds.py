"""The players' feeds: the projector tells each player where they are awaited and what changed."""

from __future__ import annotations

import fakeredis
import pytest

from services.projector.catchup.projector_context import ProjectorContext
from services.projector.jobs import catch_up
from services.projector.publishing.publish import publish_live
from shared import keys
from shared.codec import encode
from shared.eventstore import RedisEventStore
from shared.fold import FoldedMatch
from shared.readmodels import ReadModels, player_feeds
from shared.readmodels.player_feeds import MAXLEN, START, PlayerFeeds, awaiting_turns
from shared.rules import replay
from tests.projector_support import random_match


def notices(client: fakeredis.FakeRedis, player_id: str) -> list[tuple[str, dict]]:
    feeds = PlayerFeeds(client)
    return [(notice.kind, notice.data) for notice in feeds.after(player_id, START)]


def project_event_by_event(store: RedisEventStore, context: ProjectorContext, seed: int) -> list:
    """Append a random match one event at a time, catching up after each; its events."""
    events = random_match(seed, "m1")
    for position, event in enumerate(events):
        store.append("m1", [encode(event)], position)
        catch_up("m1", context)
    return events


@pytest.mark.parametrize("seed", range(3))
def test_the_seat_that_owes_is_told_at_each_version_where_it_owes(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, context: ProjectorContext, seed: int,
) -> None:
    events = project_event_by_event(store, context, seed)
    owed: dict[str, list[int]] = {"p1": [], "p2": []}
    for version in range(1, len(events) + 1):
        state = replay(events[:version])
        seat = player_feeds.owes(state)
        if seat is not None:
            owed[state.players[seat.index].id].append(version)
    for player_id, versions in owed.items():  # every match here is shorter than a feed keeps
        told = [data for kind, data in notices(fake_redis, player_id) if kind == "turn"]
        assert [data["version"] for data in told] == versions
        assert {data["match_id"] for data in told} == {"m1"}
        assert all(data["deadline"] is None or data["deadline"].endswith("Z") for data in told)  # UTC, if a clock runs


def test_each_seated_player_is_told_when_the_status_changes_and_only_then(
    fake_redis: fakeredis.FakeRedis, store: RedisEventStore, context: ProjectorContext,
) -> None:
    events = project_event_by_event(store, context, 1)
    catch_up("m1", ProjectorContext(store, context.readmodels))  # a cold cache relists: nothing changed
    changes = {player_id: [(data["status"], data["version"]) for kind, data in notices(fake_redis, player_id)
                           if kind == "match"] for player_id in ("p1", "p2")}
    assert changes == {
        "p1": [("waiting", 1), ("playing", 2), ("finished", len(events))],
        "p2": [("playing", 2), ("finished", len(events))],
    }


def test_a_turn_notice_says_the_deadline_in_utc(
    fake_redis: fakeredis.FakeRedis, readmodels: ReadModels, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(player_feeds, "deadline", lambda state: 1_767_225_600_000)
    events = random_match(0, "m1")[:3]  # created, joined, round 1 dealt: someone is on turn
    publish_live(readmodels, FoldedMatch("m1", 3, replay(events)), relist=True)
    turns = [data for player_id in ("p1", "p2") for kind, data in notices(fake_redis, player_id) if kind == "turn"]
    assert turns == [{"match_id": "m1", "version": 3, "deadline": "2026-01-01T00:00:00.000Z"}]


def test_an_older_fold_than_the_one_served_tells_no_one(
    fake_redis: fakeredis.FakeRedis, readmodels: ReadModels,
) -> None:
    events = random_match(0, "m1")
    publish_live(readmodels, FoldedMatch("m1", 4, replay(events[:4])), relist=True)
    before = {player_id: notices(fake_redis, player_id) for player_id in ("p1", "p2")}
    publish_live(readmodels, FoldedMatch("m1", 3, replay(events[:3])), relist=True)  # a slower worker
    assert {player_id: notices(fake_redis, player_id) for player_id in ("p1", "p2")} == before


def test_a_feed_keeps_only_its_latest_notices(fake_redis: fakeredis.FakeRedis, readmodels: ReadModels) -> None:
    events = random_match(0, "m1")[:3]
    for version in range(3, 3 + 5 * MAXLEN):  # the same position told again and again
        publish_live(readmodels, FoldedMatch("m1", version, replay(events)), relist=False)
    longest = max(fake_redis.xlen(keys.player_feed(player_id)) for player_id in ("p1", "p2"))
    assert MAXLEN <= longest <= MAXLEN + 100  # trimmed about MAXLEN (a macro node at a time on a real server)


def test_a_feed_lives_in_its_players_slot() -> None:
    assert keys.player_feed("p1") == "truc:{p:p1}:feed"


@pytest.mark.parametrize("page", [1, 2, player_feeds.SCAN_PAGE])
def test_the_scan_finds_the_playing_matches_that_await_the_player(
    store: RedisEventStore, context: ProjectorContext, monkeypatch: pytest.MonkeyPatch, page: int,
) -> None:
    monkeypatch.setattr(player_feeds, "SCAN_PAGE", page)
    events = random_match(2, "m1")
    for match_id, upto in (("m1", 3), ("m2", 4), ("m3", len(events))):
        seated = random_match(2, match_id)
        store.append(match_id, [encode(event) for event in seated[:upto]], 0)
        catch_up(match_id, context)
    awaited = {
        player_id: {(turn["match_id"], turn["version"]) for turn in awaiting_turns(context.readmodels, player_id)}
        for player_id in ("p1", "p2")
    }
    expected: dict[str, set] = {"p1": set(), "p2": set()}
    for match_id, upto in (("m1", 3), ("m2", 4)):  # m3 is finished: it awaits no one
        state = replay(events[:upto])
        expected[state.players[player_feeds.owes(state).index].id].add((match_id, upto))
    assert awaited == expected


def test_reading_on_from_a_position_gets_what_came_after_it(fake_redis: fakeredis.FakeRedis) -> None:
    feeds, key = PlayerFeeds(fake_redis), keys.player_feed("p1")
    assert feeds.position("p1") == START and feeds.resumes("p1", START)
    first = fake_redis.xadd(key, {"type": "match", "data": b'{"n": 1}'}).decode()
    assert feeds.position("p1") == first
    fake_redis.xadd(key, {"type": "turn", "data": b'{"n": 2}'})
    assert [(n.kind, n.data) for n in feeds.after("p1", first)] == [("turn", {"n": 2})]
    assert feeds.resumes("p1", first) and not feeds.resumes("p1", "1-0")  # before the oldest kept: maybe trimmed
    assert not feeds.resumes("p1", "99999999999999-0")  # not a position this feed ever had
