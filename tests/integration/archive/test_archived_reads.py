"""Every reader answers for an archived match exactly as it did while the match was in Redis.

The matches are archived by the archiver itself (:class:`~shared.archive.archiving.Archiver`),
so the reads are proven against what it really leaves in Redis: the index entries, the
lobby's and the players' lists, the scoreboard, the emptied ledgers.
"""
from __future__ import annotations

from collections import Counter

import orjson
import pytest
from click.testing import CliRunner

from services.api import create_app
from services.cli import archive_restore, backends, truc
from services.projector.operations import ProjectorContext, rebuild_match
from shared import keys
from shared.archive.archiving import Archiver
from shared.archive.memory import InMemoryArchive
from shared.config import Config
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels
from shared.readmodels.cold_lists import cold_keys
from shared.readmodels.rating_entries import entry_match
from tests.archive_support import play_mixed_matches
from tests.waiting import wait_until

MATCHES = 36  # six of each kind: 30 end, 6 are still being played
EVENT_PAGES = ((0, 200), (0, 7), (7, 5), (20, 10), (10_000, 3))


@pytest.fixture
def archive():
    return InMemoryArchive()


@pytest.fixture
def world(redis_server, redis_client, archive, monkeypatch):
    """An API and the `truc` tool on one real Redis and one archive, and matches of every ending, projected."""
    monkeypatch.setattr(backends, "archive_of", lambda config: archive)
    config = Config.from_env({"REDIS_URL": redis_server.url, "RATE_LIMITS": "off"})
    app = create_app(config, redis_client=redis_client, queue_client=redis_client, archive=archive)
    ctx = app.extensions["truc"]
    (alice, alice_token), (bob, bob_token) = ctx.players.register("alice"), ctx.players.register("bob")
    kinds = play_mixed_matches(ctx.matches, (alice, bob), MATCHES)
    project = ProjectorContext(RedisEventStore(redis_client), ReadModels(redis_client))
    for match_id in kinds:
        rebuild_match(match_id, project)
    return {"http": app.test_client(), "kinds": kinds, "env": {"REDIS_URL": redis_server.url},
            "tokens": {"spectator": None, "A": alice_token, "B": bob_token}, "players": {"A": alice.id, "B": bob.id}}


def ended(world) -> list[str]:
    return sorted(m for m, kind in world["kinds"].items() if kind != "playing")


def get(world, path, audience="spectator"):
    token = world["tokens"][audience]
    return world["http"].get(path, headers={"Authorization": f"Bearer {token}"} if token else {})


def view(world, match_id, audience):
    """The view's status, body (as JSON) and ETag (a private match that waited: 404 but to its creator)."""
    answer = get(world, f"/matches/{match_id}", audience)
    return answer.status_code, answer.get_json(), answer.headers.get("ETag")


def http_answers(world, match_ids) -> dict:
    """Every HTTP read of these matches, by every audience: views (as JSON), event pages and replays (bytes)."""
    answers = {}
    for match_id in match_ids:
        for audience in ("spectator", "A", "B"):
            answers[match_id, audience, "view"] = view(world, match_id, audience)
            for after, limit in EVENT_PAGES:
                page = get(world, f"/matches/{match_id}/events?after={after}&limit={limit}", audience)
                answers[match_id, audience, "events", after, limit] = (page.status_code, page.data)
            last = view(world, match_id, "A")[1]["version"]
            for version in sorted({1, last // 3, last // 2 + 1, last}):
                replayed = get(world, f"/matches/{match_id}/replay?version={max(version, 1)}", audience)
                answers[match_id, audience, "replay", version] = (replayed.status_code, replayed.data,
                                                                replayed.headers.get("ETag"))
    return answers


def run(world, *args):
    return CliRunner().invoke(truc, list(args), env=world["env"], catch_exceptions=False)


def cli_answers(world, match_ids) -> dict:
    """What `truc` says of each match (export bytes, its audit, its replay), and of them all."""
    answers = {"audit --all": run(world, "audit", "--all").output}
    for match_id in match_ids:
        for args in (("export", match_id), ("export", "--include-seed", match_id), ("audit", match_id),
                     ("replay", match_id)):
            result = run(world, *args)
            answers[args] = (result.exit_code, result.stdout_bytes)
    return answers


def without_archived(answers: dict) -> dict:
    """The answers with each view's ``archived`` field taken out (checked to be true)."""
    plain = {}
    for key, answer in answers.items():
        if key[-1] == "view" and answer[0] == 200:
            status, body, etag = answer
            assert body.pop("archived") is True
            answer = (status, body, etag)
        plain[key] = answer
    return plain


def archive_all(redis_client, archive, match_ids):
    """Archive each match now, as ``truc archive now MATCH`` does (however recently it ended)."""
    archiver = Archiver(redis_client, archive, after_ms=3_600_000)
    outcomes = [archiver.archive_one(match_id, force=True) for match_id in match_ids]
    assert [outcome.result for outcome in outcomes] == ["archived"] * len(match_ids), outcomes


def archive_match(redis_client, archive, match_id):
    archive_all(redis_client, archive, [match_id])


def list_answers(world) -> dict:
    """The lobby's lists and each player's, as the public and as each player sees them."""
    answers = {}
    for status in keys.LOBBY_STATUSES:
        answers["lobby", status] = get(world, f"/matches?status={status}&limit=100").get_json()
        for audience, player in (("spectator", "A"), ("A", "A"), ("B", "B"), ("A", "B")):
            player_id = world["players"][player]
            answer = get(world, f"/players/{player_id}/matches?status={status}&limit=100", audience)
            answers[player, "as", audience, status] = answer.get_json()
    return answers


def test_every_reader_answers_for_an_archived_match_as_before(world, redis_client, archive):
    everything = sorted(world["kinds"])
    http_before, cli_before = http_answers(world, everything), cli_answers(world, everything)
    assert "36 passed, 0 failed" in cli_before["audit --all"]
    archive_all(redis_client, archive, ended(world))
    assert not redis_client.exists(*(keys.match_events(m) for m in ended(world)))
    assert not redis_client.exists(*(keys.match_views(m) for m in ended(world)))
    http_after = http_answers(world, everything)
    for match_id in ended(world):
        assert http_after[match_id, "A", "view"][1]["archived"] is True
    live = {key: answer for key, answer in http_after.items() if world["kinds"][key[0]] == "playing"}
    assert all("archived" not in answer[1] for key, answer in live.items() if key[-1] == "view")
    assert without_archived({k: a for k, a in http_after.items() if k not in live}) == {
        k: a for k, a in http_before.items() if k not in live}
    assert live == {k: a for k, a in http_before.items() if k in live}
    assert cli_answers(world, everything) == cli_before


def test_a_rebuild_counts_archived_matches_as_before_and_writes_none_of_their_views_back(world, redis_client,
                                                                                      archive):
    archive_all(redis_client, archive, ended(world))
    boards = lambda: [get(world, path).get_json() for path in (  # noqa: E731
        "/scoreboard?limit=100", *(f"/matches?status={s}&limit=100" for s in keys.LOBBY_STATUSES))]
    players = sorted(world["players"].values())
    ratings = lambda: [get(world, f"/players/{p}/ratings?limit=100").get_json() for p in players]  # noqa: E731
    before, views, histories = boards(), http_answers(world, sorted(world["kinds"])), ratings()
    assert before[0]["version"] >= 6 and before[0]["players"]  # the won matches at least are counted
    assert len(histories[0]["ratings"]) >= 6 and hot_places(redis_client, ended(world), 0) == []
    assert redis_client.exists(*cold_keys(redis_client, keys.lobby("finished", 0)))
    result = run(world, "rebuild", "--inline", "--grace-seconds", "0")
    assert result.exit_code == 0, result.output
    assert f"{MATCHES} match(es)" in result.output and "Final pass" not in result.output
    assert boards() == before and ratings() == histories
    generation = ReadModels(redis_client).generation()
    assert generation == 1
    assert not redis_client.exists(*(keys.match_views(m, generation) for m in ended(world)))
    assert http_answers(world, sorted(world["kinds"])) == views
    assert hot_places(redis_client, ended(world), generation) == []  # compact again, as the archiver left them
    assert not [key for s in ("finished", "cancelled") for key in [  # the old generation's cold records dropped
        *redis_client.scan_iter(match=keys.player_matches_pattern(s, 0) + ":cold*"),
        *(key for key in cold_keys(redis_client, keys.lobby(s, 0)) if redis_client.exists(key))]]


def hot_places(client, match_ids, generation) -> list[tuple[str, str]]:
    """(key, match) of every list member, ledger field, counted-set member or rating-history entry (outside
    its players' cold parts) an archived match still holds."""
    players = {keys.player_id_from_key(key) for key in client.scan_iter(match=keys.player_totals_pattern(generation))}
    lists = [*(keys.lobby(s, generation) for s in ("finished", "cancelled")),
             *(keys.player_matches(p, s, generation) for p in players for s in ("finished", "cancelled"))]
    found = [(key, m) for key in lists for m in match_ids if client.zscore(key, m) is not None]
    found += [(keys.player_results(p, generation), m) for p in players for m in match_ids
              if client.hexists(keys.player_results(p, generation), m)]
    found += [(keys.player_ratings(p, generation), m) for p in players for m in match_ids
              for member in client.zrange(keys.player_ratings(p, generation), 0, -1) if entry_match(member) == m]
    return found + [(keys.scoreboard_matches(generation), m) for m in match_ids
                    if client.sismember(keys.scoreboard_matches(generation), m)]


def test_a_restore_puts_every_archived_match_back_as_it_was(world, redis_client, archive):
    match_ids = ended(world)
    spectators = lambda: {k: a for k, a in http_answers(world, match_ids).items() if k[1] == "spectator"}  # noqa: E731
    http_before, cli_before = spectators(), cli_answers(world, match_ids)
    board = get(world, "/scoreboard?limit=100").get_json()
    archive_all(redis_client, archive, match_ids)
    redis_client.flushall()  # Redis is lost: the archive is all there is
    result = CliRunner().invoke(archive_restore.restore, [], env=world["env"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert f"restored {len(match_ids)} match(es)" in result.output
    assert not list(redis_client.scan_iter(match=keys.MATCH_ARCHIVED_PATTERN))
    assert spectators() == http_before
    cli_after = cli_answers(world, match_ids)
    assert f"{len(match_ids)} passed, 0 failed" in cli_after.pop("audit --all")  # the live matches were lost
    cli_before.pop("audit --all")
    assert cli_after == cli_before
    assert get(world, "/scoreboard?limit=100").get_json() == board
    again = CliRunner().invoke(archive_restore.restore, [], env=world["env"], catch_exceptions=False)
    assert f"restored 0 match(es) from the archive; {len(match_ids)} already in Redis" in again.output


def test_the_restore_command_is_reachable_from_truc(world, redis_client, archive):
    archive_all(redis_client, archive, ended(world)[:1])
    assert "restored 1 match(es)" in run(world, "archive", "restore").output


def test_an_archived_record_reads_once_for_many_requests(world, redis_client, archive, monkeypatch):
    match_id = next(m for m, kind in world["kinds"].items() if kind == "won")
    archive_match(redis_client, archive, match_id)
    reads = []
    original = archive.get
    monkeypatch.setattr(archive, "get", lambda m: reads.append(m) or original(m))
    for version in range(1, 12):
        assert get(world, f"/matches/{match_id}/replay?version={version}").status_code == 200
    assert get(world, f"/matches/{match_id}").status_code == 200
    assert reads == [match_id]


def test_an_archive_out_of_reach_or_damaged_answers_503_with_a_stable_code(world, redis_client, archive,
                                                                          monkeypatch):
    lost, damaged = ended(world)[:2]
    archive_all(redis_client, archive, [lost, damaged])
    archive._records[damaged] = archive._records[damaged][:-9]  # a truncated record

    def unreachable(match_id):
        if match_id == lost:
            from shared.archive import ArchiveUnavailableError
            raise ArchiveUnavailableError("connection refused")
        return InMemoryArchive.get(archive, match_id)

    monkeypatch.setattr(archive, "get", unreachable)
    for path in ("", "/events", "/replay?version=1"):
        answer = get(world, f"/matches/{lost}{path}")
        assert (answer.status_code, answer.get_json()["error"]) == (503, "ARCHIVE_UNAVAILABLE")
        assert answer.headers["Retry-After"]
        answer = get(world, f"/matches/{damaged}{path}")
        assert (answer.status_code, answer.get_json()["error"]) == (503, "MATCH_UNREADABLE")
    finnish = world["http"].get(f"/matches/{lost}/events?lang=fi")
    assert finnish.get_json()["message"].startswith("Tämä peli on arkistoitu")
    audit = run(world, "audit", "--all")
    assert audit.exit_code == 1 and "archive" in audit.output and "2 failed" in audit.output


def test_an_append_to_an_archived_match_records_nothing_in_redis(world, redis_client, archive):
    match_id = next(m for m, kind in world["kinds"].items() if kind == "won")
    archive_match(redis_client, archive, match_id)
    answer = world["http"].post(f"/matches/{match_id}/actions", json={"type": "fold"},
                                headers={"Authorization": f"Bearer {world['tokens']['A']}"})
    assert answer.status_code == 409, answer.data
    assert not redis_client.exists(keys.match_events(match_id))
    imported = run(world, "export", match_id)
    assert orjson.loads(imported.stdout_bytes.splitlines()[0])["events"] > 0


def test_the_lobby_and_the_players_lists_name_archived_matches_as_before(world, redis_client, archive):
    before = list_answers(world)
    finished, cancelled = (before["lobby", status]["matches"] for status in ("finished", "cancelled"))
    assert len(finished) >= 18 and len(cancelled) == 6  # the private ones are not in the lobby
    assert len(before["A", "as", "A", "cancelled"]["matches"]) == 12  # but in their creator's own list
    archive_all(redis_client, archive, ended(world))
    assert not redis_client.exists(*(keys.match_views(m) for m in ended(world)))
    after = list_answers(world)
    assert after == before  # the lines carry nothing new: only the match's own view says `archived`
    assert list_answers(world) == before  # read again, from what the process kept


def test_list_pages_read_each_archived_record_once_then_only_what_the_process_keeps(world, redis_client, archive,
                                                                                    monkeypatch):
    archive_all(redis_client, archive, ended(world))
    reads, rounds = [], []
    original = archive.get
    monkeypatch.setattr(archive, "get", lambda m: reads.append(m) or original(m))
    list_answers(world)  # the first lines kept: the process starts hearing renames
    assert sorted(set(reads)) == ended(world)

    def a_round_reads_nothing() -> bool:
        before = len(reads)
        list_answers(world)
        rounds.append(len(reads) - before)
        return rounds[-1] == 0
    # The subscription's confirmation forgets what was kept before it (a rename may have gone
    # unheard until then): each record is read once more, and from then on only kept lines serve.
    wait_until(a_round_reads_nothing, what="a round of every list served from the lines kept")
    for _ in range(5):
        assert a_round_reads_nothing(), rounds
    assert max(Counter(reads).values()) <= 2, Counter(reads)


def test_a_list_leaves_out_an_archived_match_it_cannot_read_and_lists_the_rest(world, redis_client, archive,
                                                                              monkeypatch):
    before = list_answers(world)["lobby", "finished"]["matches"]
    damaged = before[0]["id"]
    archive_all(redis_client, archive, ended(world))
    archive._records[damaged] = archive._records[damaged][:-9]  # a truncated record
    answer = get(world, "/matches?status=finished&limit=100")
    assert answer.status_code == 200
    assert answer.get_json()["matches"] == before[1:]
    assert get(world, f"/matches/{damaged}").get_json()["error"] == "MATCH_UNREADABLE"  # its own read says why


def test_a_list_answers_while_the_archive_is_out_of_reach_and_asks_it_once(world, redis_client, archive,
                                                                          monkeypatch):
    from shared.archive import ArchiveUnavailableError

    playing = get(world, "/matches?status=playing&limit=100").get_json()
    archive_all(redis_client, archive, ended(world))
    asked = []

    def unreachable(match_id):
        asked.append(match_id)
        raise ArchiveUnavailableError("connection refused")

    monkeypatch.setattr(archive, "get", unreachable)
    for status in ("finished", "cancelled"):
        answer = get(world, f"/matches?status={status}&limit=100")
        assert (answer.status_code, answer.get_json()) == (200, {"matches": []})
    assert len(asked) == 1  # the first failure stands for the archive: not asked again at once
    assert get(world, "/matches?status=playing&limit=100").get_json() == playing
