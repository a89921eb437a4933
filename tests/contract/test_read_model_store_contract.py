"""One contract, every read-model store: in memory, Redis on fakeredis, a real redis-server,
and a Redis Cluster of three masters. One generation (``store``: views, lobby, scoreboard),
then the whole read side (``side``: generations, pointer, players' feeds, clocks, parked registry).

A store that passes this suite can replace another under the projector (which writes it)
and the API (which reads it) without either noticing. See :mod:`shared.readmodels.port`.
"""

from __future__ import annotations

from typing import Any

import pytest

from shared.eventstore.schema import iso_from_ms
from shared.readmodels.generations import Pointer
from shared.readmodels.memory import InMemoryGenerationModels
from shared.readmodels.memory_served import InMemoryReadModels
from shared.readmodels.parked import Poison
from shared.readmodels.player_feeds import START, Telling
from shared.readmodels.port import ClockIndex, FeedReader, ParkedRegistry, ReadModelStore, ReadSide
from shared.readmodels.served import ReadModels
from shared.readmodels.writes import GenerationModels, InvalidAudienceError


@pytest.fixture(
    params=[
        pytest.param("memory", marks=pytest.mark.unit),
        pytest.param("fakeredis", marks=pytest.mark.unit),
        pytest.param("redis", marks=pytest.mark.integration),
        pytest.param("cluster", marks=pytest.mark.integration),
    ]
)
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(params=[0, 2], ids=["generation 0", "generation 2"])
def store(backend: str, request: pytest.FixtureRequest) -> ReadModelStore:
    if backend == "memory":
        return InMemoryGenerationModels(request.param)
    # Fetched lazily so that memory-only runs never start a redis-server.
    client_fixture = {"fakeredis": "fake_redis", "redis": "redis_client", "cluster": "redis_cluster_client"}[backend]
    return GenerationModels(request.getfixturevalue(client_fixture), request.param)


def seat(player_id: str) -> dict[str, Any]:
    return {"id": player_id, "name": player_id.upper()}


def summary_of(match_id: str, version: int, status: str = "playing", *, private: bool = False,
               players: tuple[str, ...] = ("p1", "p2")) -> dict[str, Any]:
    seats = dict(zip(("A", "B"), (seat(player) for player in players)))
    return {"id": match_id, "status": status, "version": version, "players": {"A": None, "B": None, **seats},
            "private": private}


def views_of(match_id: str, version: int) -> dict[str, dict[str, Any]]:
    return {audience: {"id": match_id, "version": version, "seen_by": audience} for audience in ("A", "B", "spectator")}


def write(store: ReadModelStore, match_id: str, version: int, status: str = "playing", **options: Any) -> bool:
    private = options.pop("private", False)
    return store.write_match(match_id, version, views_of(match_id, version),
                             summary_of(match_id, version, status, private=private), **options)


def test_the_store_satisfies_the_port(store: ReadModelStore) -> None:
    assert isinstance(store, ReadModelStore)


def test_written_views_read_back_per_audience(store: ReadModelStore) -> None:
    assert store.view("m1", "A") is None and store.summary("m1") is None and store.projected_version("m1") == 0
    assert write(store, "m1", 3)
    assert store.view("m1", "B") == {"id": "m1", "version": 3, "seen_by": "B"}
    assert store.view_json("m1", "spectator") == b'{"id":"m1","version":3,"seen_by":"spectator"}'
    assert store.summary("m1") == summary_of("m1", 3)
    assert store.projected_versions(["m1", "m2"]) == [3, 0]
    with pytest.raises(InvalidAudienceError):
        store.view("m1", "C")


def test_views_never_move_backwards_and_a_rebuild_may_rewrite_the_same_version(store: ReadModelStore) -> None:
    write(store, "m1", 5)
    assert not write(store, "m1", 4)
    assert not write(store, "m1", 5)
    assert store.projected_version("m1") == 5
    assert store.write_match("m1", 5, views_of("m1", 5), summary_of("m1", 5, "finished"), replace_same_version=True)
    assert store.summary("m1")["status"] == "finished"
    assert not store.write_match("m1", 4, views_of("m1", 4), summary_of("m1", 4), replace_same_version=True)


def test_a_match_is_listed_under_one_status_in_the_lobby_and_its_players_lists(store: ReadModelStore) -> None:
    write(store, "m1", 1, "waiting")
    assert store.place_in_lobby("m1", "waiting", 1000, ["p1", "p2"], read_status=True) == "waiting"
    write(store, "m1", 2, "playing")
    assert store.place_in_lobby("m1", "playing", 1000, ["p1", "p2"], read_status=True) == "playing"
    assert store.lobby("waiting") == []
    assert [line["id"] for line in store.lobby("playing")] == ["m1"]
    assert [line["id"] for line in store.player_matches("p2", "playing")] == ["m1"]
    assert store.place_in_lobby("m9", "waiting", 1000, read_status=True) is None  # no summary stored


def test_the_lobby_lists_newest_first_up_to_the_limit_and_hides_private_matches(store: ReadModelStore) -> None:
    for n, private in ((1, False), (2, True), (3, False), (4, False)):
        write(store, f"m{n}", 1, "waiting", private=private)
        store.place_in_lobby(f"m{n}", "waiting", 1000 * n, ["p1"])
    assert [line["id"] for line in store.lobby("waiting")] == ["m4", "m3", "m1"]
    assert [line["id"] for line in store.lobby("waiting", limit=2)] == ["m4", "m3"]
    assert [line["id"] for line in store.player_matches("p1", "waiting")] == ["m4", "m3", "m2", "m1"]
    assert [line["id"] for line in store.player_matches("p1", "waiting", hide=True)] == ["m4", "m3", "m1"]


def test_the_lobby_pages_on_after_the_last_match_of_the_page_before(store: ReadModelStore) -> None:
    for n, private in ((1, False), (2, True), (3, False), (4, False), (5, False)):
        line = {**summary_of(f"m{n}", 1, "waiting", private=private), "created_at": iso_from_ms(1000 * n)}
        store.write_match(f"m{n}", 1, views_of(f"m{n}", 1), line)
        store.place_in_lobby(f"m{n}", "waiting", 1000 * n, ["p1"])
    pages, after = [], None
    while page := store.lobby("waiting", limit=2, after=after):
        pages.append([line["id"] for line in page])
        after = page[-1]["id"]
    assert pages == [["m5", "m4"], ["m3", "m1"]]  # each public match once, newest first
    assert store.lobby("waiting", after="m9") == []  # no such match: nothing after it


def test_a_players_list_pages_on_after_the_last_match_of_the_page_before(store: ReadModelStore) -> None:
    created = {"m1": 1000, "m2": 2000, "m3": 2000, "m4": 3000, "m5": 4000}  # m2 and m3: the same millisecond
    for match_id, at in created.items():
        line = {**summary_of(match_id, 1, "finished"), "created_at": iso_from_ms(at)}
        store.write_match(match_id, 1, views_of(match_id, 1), line)
        store.place_in_lobby(match_id, "finished", at, ["p1", "p2"])
    pages, after = [], None
    while page := store.player_matches("p1", "finished", limit=2, after=after):
        pages.append([line["id"] for line in page])
        after = page[-1]["id"]
    assert pages == [["m5", "m4"], ["m3", "m2"], ["m1"]]  # each once, newest first, ties as ZREVRANGE orders them
    assert store.player_matches("p1", "finished", after="m9") == []  # no such match: nothing after it


def test_a_stale_listing_is_moved_as_it_is_met_and_settling_follows_the_stored_summary(
    store: ReadModelStore,
) -> None:
    write(store, "m1", 2, "playing")
    store.place_in_lobby("m1", "waiting", 1000, ["p1"])  # a slower worker listed an older status
    assert store.lobby("waiting") == []
    assert [line["id"] for line in store.lobby("playing")] == ["m1"]
    store.place_in_lobby("m1", "waiting", 1000, ["p1"])
    store.settle_lobby("m1", 1000)
    assert [line["id"] for line in store.player_matches("p1", "playing")] == ["m1"]


def test_a_match_listed_before_its_views_are_written_is_shown_once_written(store: ReadModelStore) -> None:
    store.place_in_lobby("m1", "waiting", 1000)
    assert store.lobby("waiting") == []
    write(store, "m1", 1, "waiting")
    assert [line["id"] for line in store.lobby("waiting")] == ["m1"]


def test_each_finished_match_counts_once_per_player(store: ReadModelStore) -> None:
    assert store.record_result("m1", "p1", "Ana", True, 2, 30, 12, 0)
    assert not store.record_result("m1", "p1", "Ana", True, 2, 30, 12, 0)
    assert store.record_result("m2", "p1", "Ana", False, 1, 10, 30, 0)
    assert store.player_row("p1") == {"id": "p1", "name": "Ana", "matches_played": 2, "matches_won": 1,
                                      "rounds_won": 3, "points_for": 40, "points_against": 42}
    assert store.player_row("p9") is None
    assert store.scoreboard()["version"] == 2


def test_the_scoreboard_ranks_by_wins_then_points_difference_then_name(store: ReadModelStore) -> None:
    store.record_result("m1", "p1", "Zoé", True, 2, 30, 10, 0)
    store.record_result("m1", "p2", "Bea", False, 0, 10, 30, 0)
    store.record_result("m2", "p3", "Ana", True, 2, 30, 10, 0)
    store.record_result("m2", "p4", "Cid", False, 1, 29, 30, 0)
    board = store.scoreboard()
    assert [row["id"] for row in board["players"]] == ["p3", "p1", "p4", "p2"]
    assert [row["id"] for row in store.scoreboard(limit=2)["players"]] == ["p3", "p1"]
    assert store.scoreboard(limit=0)["players"] == []
    assert board["version"] == 2


def test_generations_do_not_see_each_other(backend: str, request: pytest.FixtureRequest) -> None:
    if backend == "memory":
        one, two = InMemoryGenerationModels(1), InMemoryGenerationModels(2)
    else:
        client = request.getfixturevalue({"fakeredis": "fake_redis", "redis": "redis_client",
                                          "cluster": "redis_cluster_client"}[backend])
        one, two = GenerationModels(client, 1), GenerationModels(client, 2)
    write(one, "m1", 1)
    one.record_result("m1", "p1", "Ana", True, 2, 30, 10, 0)
    assert two.projected_version("m1") == 0 and two.scoreboard() == {"players": [], "version": 0}


# --- the whole read side: generations, the pointer, feeds, clocks, the parked registry ---------


def read_side(backend: str, request: pytest.FixtureRequest, **options: Any) -> ReadSide:
    if backend == "memory":
        return InMemoryReadModels(**options)
    client_fixture = {"fakeredis": "fake_redis", "redis": "redis_client", "cluster": "redis_cluster_client"}[backend]
    return ReadModels(request.getfixturevalue(client_fixture), **options)


@pytest.fixture
def side(backend: str, request: pytest.FixtureRequest) -> ReadSide:
    return read_side(backend, request)


def test_the_read_side_satisfies_the_port(side: ReadSide) -> None:
    assert isinstance(side, ReadSide)
    assert isinstance(side.parked, ParkedRegistry) and isinstance(side.clocks, ClockIndex)
    assert isinstance(side.feeds, FeedReader) and isinstance(side.at(0), ReadModelStore)


def test_a_fresh_read_side_serves_generation_0_and_builds_none(side: ReadSide) -> None:
    assert side.pointer() == Pointer() and side.generation() == 0


def test_writes_go_to_the_served_generation_unless_told_which(side: ReadSide) -> None:
    assert side.write_match("m1", 2, views_of("m1", 2), summary_of("m1", 2, "waiting"))
    side.place_in_lobby("m1", "waiting", 1000, ["p1", "p2"])
    side.record_result("m1", "p1", "Ana", True, 2, 30, 10, 0)
    assert side.write_match("m1", 3, views_of("m1", 3), summary_of("m1", 3, "playing"), generation=2, clear_mark=False)
    assert side.place_in_lobby("m1", "playing", 1000, ["p1"], generation=2, read_status=True) == "playing"
    side.settle_lobby("m1", 1000, generation=2)
    assert side.projected_version("m1") == 2 and side.at(0).projected_version("m1") == 2
    assert side.view("m1", "A") == views_of("m1", 2)["A"] and side.view_json("m1", "B") is not None
    assert side.summary("m1")["status"] == "waiting"
    assert [line["id"] for line in side.lobby("waiting")] == ["m1"]
    assert [line["id"] for line in side.player_matches("p2", "waiting")] == ["m1"]
    assert side.scoreboard()["version"] == 1 and side.player_row("p1")["matches_won"] == 1
    assert side.at(2).projected_version("m1") == 3 and side.at(2).scoreboard()["players"] == []
    assert [line["id"] for line in side.at(2).lobby("playing")] == ["m1"]


def test_a_listed_match_whose_views_left_for_the_archive_is_shown_with_its_archived_line(
    backend: str, request: pytest.FixtureRequest,
) -> None:
    archived = {"m1": summary_of("m1", 9, "finished"), "m3": summary_of("m3", 4, "finished", private=True),
                "m5": summary_of("m5", 6, "cancelled")}
    asked: list[str] = []
    side = read_side(backend, request, archived_summary=lambda match_id: asked.append(match_id) or
                     archived.get(match_id))
    for n in range(1, 6):
        side.place_in_lobby(f"m{n}", "finished", 1000 * n, ["p1", "p2"])  # m2: listed, with no line anywhere
    side.write_match("m4", 7, views_of("m4", 7), summary_of("m4", 7, "finished"))
    assert [line["id"] for line in side.lobby("finished")] == ["m4", "m1"]
    assert side.lobby("finished")[1] == archived["m1"]
    assert [line["id"] for line in side.player_matches("p1", "finished")] == ["m4", "m3", "m1"]
    assert [line["id"] for line in side.player_matches("p2", "finished", hide=True)] == ["m4", "m1"]
    assert "m4" not in asked  # a stored summary is never looked for elsewhere
    assert side.summary("m1") is None and side.view("m1", "A") is None  # only the lists are given the line
    assert [line["id"] for line in side.lobby("cancelled")] == ["m5"]  # moved as it was met, like any stale listing
    assert [line["id"] for line in side.player_matches("p2", "cancelled")] == ["m5"]


@pytest.fixture(
    params=[
        pytest.param("memory", marks=pytest.mark.unit),
        pytest.param("fakeredis", marks=pytest.mark.unit),
        pytest.param("redis", marks=pytest.mark.integration),
    ]
)
def waiting_side(request: pytest.FixtureRequest) -> ReadSide:
    """``side`` but on a cluster: a wait there starts the process's subscriber, whose thread
    outlives the test and then the cluster's fixture, and fails loudly as that goes."""
    if request.param == "memory":
        return InMemoryReadModels()
    return ReadModels(request.getfixturevalue({"fakeredis": "fake_redis", "redis": "redis_client"}[request.param]))


def test_a_wait_for_a_version_reached_returns_at_once_and_one_not_reached_gives_the_version_there_is(
    waiting_side: ReadSide,
) -> None:
    side = waiting_side
    side.write_match("m1", 4, views_of("m1", 4), summary_of("m1", 4))
    assert side.wait_for_version("m1", 3, timeout_s=30) == 4
    assert side.wait_for_version("m1", 5, timeout_s=0) == 4


def test_notices_told_read_back_from_each_players_feed_in_order(side: ReadSide) -> None:
    feeds = side.feeds
    assert feeds.position("p1") == START and feeds.resumes("p1", START) and feeds.after("p1", START) == []
    side.tell("m1", None, [Telling("p1", "match", {"match_id": "m1", "status": "playing", "version": 2}),
                           Telling("p2", "match", {"match_id": "m1", "status": "playing", "version": 2}),
                           Telling("p1", "turn", {"match_id": "m1", "version": 2, "deadline": None})])
    told = feeds.after("p1", START)
    assert [(notice.kind, notice.data["version"]) for notice in told] == [("match", 2), ("turn", 2)]
    assert feeds.position("p1") == told[-1].id and feeds.resumes("p1", told[0].id)
    assert feeds.after("p1", told[0].id) == told[1:] and feeds.after("p1", told[-1].id) == []
    assert [notice.kind for notice in feeds.after("p2", START)] == ["match"]
    side.tell("m1", None, [])
    assert feeds.after("p1", START) == told


def test_a_clock_told_is_due_once_its_deadline_passes_and_none_stops_it(side: ReadSide) -> None:
    clocks = side.clocks
    assert clocks.running() == 0 and clocks.next_deadline() is None and clocks.due(10_000) == []
    side.tell("m1", 5_000, [])
    side.tell("m2", 3_000, [])
    side.tell("m3", 9_000, [])
    assert clocks.running() == 3 and clocks.next_deadline() == 3_000
    assert clocks.due(6_000) == ["m2", "m1"] and clocks.due(6_000, limit=1) == ["m2"]
    side.tell("m2", None, [])
    assert clocks.due(10_000) == ["m1", "m3"] and clocks.running() == 2


def test_a_parked_match_stays_parked_until_removed_or_its_views_pass_the_poison(side: ReadSide) -> None:
    registry = side.parked
    assert registry.get("m1") is None and registry.all() == {} and not registry.remove("m1")
    record = registry.park("m1", Poison(3, "UnknownEventError: nope"), stream_version=5)
    registry.park("m2", Poison(1, "boom"), stream_version=1)
    assert (record.match, record.version, record.error, record.stream_version) == \
        ("m1", 3, "UnknownEventError: nope", 5)
    assert registry.get("m1") == record and set(registry.all()) == {"m1", "m2"}
    assert not record.retry_due(5) and record.retry_due(6)
    side.write_match("m2", 1, views_of("m2", 1), summary_of("m2", 1))  # past m2's poison, not m1's
    assert [parked.match for parked in registry.current(side)] == ["m1"]
    assert registry.forget_passed(side) == ["m2"] and set(registry.all()) == {"m1"}
    assert registry.remove("m1") and registry.get("m1") is None
