"""Match views and the lobby in Redis: never backwards, marks cleared, lobby self-healing."""

from __future__ import annotations

import threading

import fakeredis
import orjson
import pytest

from shared import keys
from shared.codec import encode
from shared.eventstore import RedisEventStore
from shared.readmodels import InvalidAudienceError, ReadModels
from shared.rules.events import RoundVoid


def views_of(version: int) -> dict[str, dict]:
    return {audience: {"seen_by": audience, "version": version} for audience in ("A", "B", "spectator")}


def summary_of(match_id: str, status: str, version: int = 1) -> dict:
    return {"id": match_id, "status": status, "version": version}


def append_events(store: RedisEventStore, match_id: str, count: int) -> int:
    """Append ``count`` placeholder events (the read models never look inside here)."""
    version = store.version(match_id)
    for _ in range(count):
        version = store.append(match_id, [encode(RoundVoid(round=1))], version)
    return version


def test_views_are_stored_as_json_bytes_and_read_back(readmodels: ReadModels) -> None:
    assert readmodels.write_match("m1", 3, views_of(3), summary_of("m1", "playing", 3))
    assert readmodels.view_json("m1", "B") == orjson.dumps({"seen_by": "B", "version": 3})
    assert readmodels.view("m1", "spectator") == {"seen_by": "spectator", "version": 3}
    assert readmodels.summary("m1") == summary_of("m1", "playing", 3)
    assert readmodels.projected_version("m1") == 3


def test_an_unprojected_match_has_no_views_and_version_zero(readmodels: ReadModels) -> None:
    assert readmodels.view_json("m1", "A") is None
    assert readmodels.view("m1", "A") is None
    assert readmodels.summary("m1") is None
    assert readmodels.projected_version("m1") == 0


def test_a_slow_worker_cannot_move_a_view_backwards(readmodels: ReadModels) -> None:
    assert readmodels.write_match("m1", 9, views_of(9), summary_of("m1", "playing", 9))
    assert not readmodels.write_match("m1", 4, views_of(4), summary_of("m1", "waiting", 4))
    assert not readmodels.write_match("m1", 9, views_of(9), summary_of("m1", "stale", 9))
    assert readmodels.view("m1", "A") == {"seen_by": "A", "version": 9}
    assert readmodels.summary("m1")["status"] == "playing"


def test_a_rebuild_may_rewrite_the_same_version_but_never_an_older_one(readmodels: ReadModels) -> None:
    readmodels.write_match("m1", 9, views_of(9), summary_of("m1", "old", 9))
    assert readmodels.write_match("m1", 9, views_of(9), summary_of("m1", "new", 9), replace_same_version=True)
    assert not readmodels.write_match("m1", 8, views_of(8), summary_of("m1", "older", 8), replace_same_version=True)
    assert readmodels.summary("m1")["status"] == "new"


def test_writing_clears_the_mark_unless_a_newer_append_set_it(
    store: RedisEventStore, readmodels: ReadModels,
) -> None:
    append_events(store, "m1", 5)
    readmodels.write_match("m1", 3, views_of(3), summary_of("m1", "playing", 3))
    assert list(store.unprojected()) == ["m1"]  # events 4 and 5 are not in the views yet
    readmodels.write_match("m1", 5, views_of(5), summary_of("m1", "playing", 5))
    assert list(store.unprojected()) == []


def test_a_refused_older_write_still_clears_a_mark_the_stored_views_cover(
    store: RedisEventStore, readmodels: ReadModels,
) -> None:
    append_events(store, "m1", 4)
    readmodels.write_match("m1", 4, views_of(4), summary_of("m1", "playing", 4))
    store.append("m1", [encode(RoundVoid(round=1))], 4)  # the mark now says 5
    assert not readmodels.write_match("m1", 4, views_of(4), summary_of("m1", "playing", 4))
    assert list(store.unprojected()) == ["m1"]


def test_waiting_for_a_version_returns_once_it_is_written(readmodels: ReadModels) -> None:
    readmodels.write_match("m1", 1, views_of(1), summary_of("m1", "waiting"))
    writer = threading.Timer(0.05, readmodels.write_match, ("m1", 2, views_of(2), summary_of("m1", "playing", 2)))
    writer.start()
    assert readmodels.wait_for_version("m1", 2, timeout_s=5) == 2
    writer.join()


def test_waiting_for_a_version_gives_up_with_the_version_reached(readmodels: ReadModels) -> None:
    readmodels.write_match("m1", 1, views_of(1), summary_of("m1", "waiting"))
    assert readmodels.wait_for_version("m1", 7, timeout_s=0.02) == 1
    assert readmodels.wait_for_version("m1", 1, timeout_s=0) == 1


def test_an_unknown_audience_or_match_id_is_refused(readmodels: ReadModels) -> None:
    with pytest.raises(InvalidAudienceError):
        readmodels.view_json("m1", "C")
    with pytest.raises(keys.InvalidMatchIdError):
        readmodels.view_json("m}1", "A")
    with pytest.raises(keys.InvalidLobbyStatusError):
        readmodels.lobby("new")


def test_the_lobby_lists_matches_by_status_newest_first(readmodels: ReadModels) -> None:
    for created_at, (match_id, status) in enumerate([("m1", "waiting"), ("m2", "playing"),
                                                     ("m3", "waiting"), ("m4", "finished")]):
        readmodels.place_in_lobby(match_id, status, 1000 + created_at)
        readmodels.write_match(match_id, 1, views_of(1), summary_of(match_id, status))
    assert [s["id"] for s in readmodels.lobby("waiting")] == ["m3", "m1"]
    assert [s["id"] for s in readmodels.lobby("playing")] == ["m2"]
    assert [s["id"] for s in readmodels.lobby("finished")] == ["m4"]
    assert [s["id"] for s in readmodels.lobby("waiting", limit=1)] == ["m3"]
    assert readmodels.lobby("waiting", limit=0) == []


def test_the_lobby_moves_a_match_whose_summary_has_another_status(readmodels: ReadModels) -> None:
    readmodels.write_match("m1", 3, views_of(3), summary_of("m1", "playing", 3))
    readmodels.place_in_lobby("m1", "waiting", 1000)  # a slower worker's late listing
    assert readmodels.lobby("waiting") == []
    assert [s["id"] for s in readmodels.lobby("playing")] == ["m1"]


def test_the_lobby_fills_its_page_past_misplaced_matches(readmodels: ReadModels) -> None:
    for n in range(6):
        status = "waiting" if n % 2 else "playing"
        readmodels.write_match(f"m{n}", 1, views_of(1), summary_of(f"m{n}", status))
        readmodels.place_in_lobby(f"m{n}", "waiting", 1000 + n)
    assert [s["id"] for s in readmodels.lobby("waiting", limit=2)] == ["m5", "m3"]
    assert [s["id"] for s in readmodels.lobby("waiting", limit=5)] == ["m5", "m3", "m1"]


def test_a_listed_match_without_views_yet_is_not_shown(readmodels: ReadModels) -> None:
    readmodels.place_in_lobby("m1", "waiting", 1000)
    assert readmodels.lobby("waiting") == []


def test_settling_the_lobby_follows_the_stored_summary(readmodels: ReadModels) -> None:
    readmodels.write_match("m1", 5, views_of(5), summary_of("m1", "finished", 5))
    readmodels.place_in_lobby("m1", "playing", 1000)
    readmodels.settle_lobby("m1", 1000)
    assert [s["id"] for s in readmodels.lobby("finished")] == ["m1"]
    assert readmodels.lobby("playing") == []


def test_settling_from_the_summary_just_written_still_follows_a_newer_stored_one(
    fake_redis: fakeredis.FakeRedis, readmodels: ReadModels,
) -> None:
    readmodels.write_match("m1", 5, views_of(5), summary_of("m1", "finished", 5))  # a faster worker's
    readmodels.settle_lobby("m1", 1000, written=summary_of("m1", "playing", 4))  # what this one wrote before
    assert fake_redis.zrange(keys.lobby("finished"), 0, -1) == [b"m1"]
    assert fake_redis.zrange(keys.lobby("playing"), 0, -1) == []


def test_placing_a_match_can_read_the_status_its_stored_summary_holds(readmodels: ReadModels) -> None:
    assert readmodels.place_in_lobby("m1", "waiting", 1000, read_status=True) is None  # no views yet
    readmodels.write_match("m1", 3, views_of(3), summary_of("m1", "playing", 3))
    assert readmodels.place_in_lobby("m1", "finished", 1000, read_status=True) == "playing"
    assert readmodels.place_in_lobby("m1", "finished", 1000) is None


def test_lag_counts_the_events_appended_but_not_projected(
    store: RedisEventStore, readmodels: ReadModels,
) -> None:
    append_events(store, "m1", 5)
    append_events(store, "m2", 2)
    readmodels.write_match("m1", 3, views_of(3), summary_of("m1", "playing", 3))
    assert readmodels.lag(store) == 2 + 2
    readmodels.write_match("m2", 2, views_of(2), summary_of("m2", "playing", 2))
    assert readmodels.lag(store) == 2


def test_read_models_work_on_a_client_that_decodes_responses() -> None:
    """Views then come back as text, still JSON."""
    client = fakeredis.FakeRedis(server=fakeredis.FakeServer(), decode_responses=True)
    readmodels = ReadModels(client)
    readmodels.write_match("m1", 1, views_of(1), summary_of("m1", "waiting"))
    readmodels.place_in_lobby("m1", "waiting", 1000)
    assert readmodels.view("m1", "A") == {"seen_by": "A", "version": 1}
    assert [s["id"] for s in readmodels.lobby("waiting")] == ["m1"]
