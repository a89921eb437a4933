"""Finished matches leave Redis for the archive under the running stack, and read as before over HTTP.

An archiver worker is started as ``make run`` starts one (``ARCHIVE_AFTER=1``, the files
archive in DATA_DIR), after every read of the matches was kept: each read is then made again
and compared, and the operator's audit passes over the archived and the live matches alike.
"""
from __future__ import annotations

import random
import subprocess
import sys

from shared import keys
from tests.waiting import wait_until

from .conftest import ROOT
from .table import new_match, play_to_the_end, register, stream_version

ARCHIVED_IN_SECONDS = 60  # ARCHIVE_AFTER=1 and a sweep a second: a few seconds at most, unless something is wrong


def _ended_matches(stack) -> tuple[dict[str, dict], dict]:
    """Two matches won on score and one cancelled, by the same two players; each id with its seats."""
    ended = {}
    for seed in (11, 12):
        match_id, a, b = new_match(stack)
        play_to_the_end(stack, match_id, {"A": a, "B": b}, random.Random(seed))
        ended[match_id] = {"A": a, "B": b}
    creator = register(stack, "c")
    created = stack.http.post("/matches", {}, token=creator.token)
    assert created.status == 201, created.body
    cancelled = stack.http.post(f"/matches/{created.body['id']}/actions", {"type": "cancel"}, token=creator.token)
    assert cancelled.status == 200, cancelled.body
    ended[created.body["id"]] = {"A": creator}
    return ended, creator


def _reads(stack, ended: dict[str, dict]) -> dict:
    """Every read of the ended matches by every audience: views (JSON and ETag), logs and replays (bytes)."""
    reads = {}
    for match_id, seats in ended.items():
        for audience, token in (("spectator", None), *((seat, p.token) for seat, p in seats.items())):
            shown = stack.http.get(f"/matches/{match_id}", token=token)
            reads[match_id, audience, "view"] = (shown.status, shown.body, shown.headers.get("etag"))
            log = stack.http.get(f"/matches/{match_id}/events?limit=1000", token=token)
            reads[match_id, audience, "events"] = (log.status, log.raw)
            last = shown.body["version"]
            for version in sorted({1, last // 2, last}):
                replay = stack.http.get(f"/matches/{match_id}/replay?version={version}", token=token)
                reads[match_id, audience, "replay", version] = (replay.status, replay.raw)
    return reads


def _lists(stack, ended: dict[str, dict]) -> dict:
    """The lobby's lines of the ended matches, and each of their players' lists (their own and the public's)."""
    lists = {}
    for status in ("finished", "cancelled"):
        lobby = stack.http.get(f"/matches?status={status}&limit=100").body["matches"]
        lists["lobby", status] = [line for line in lobby if line["id"] in ended]
        for seats in ended.values():
            for player in seats.values():
                path = f"/players/{player.id}/matches?status={status}&limit=100"
                lists[player.id, status, "own"] = stack.http.get(path, token=player.token).body
                lists[player.id, status, "public"] = stack.http.get(path).body
    return lists


def _a_move(stack, match_id: str, seats: dict) -> tuple[int, str]:
    moved = stack.http.post(f"/matches/{match_id}/actions", {"type": "resign"}, token=seats["A"].token)
    return moved.status, moved.body["error"]


def _archived(stack, match_ids, archiver) -> bool:
    assert archiver.poll() is None, "the archiver exited"
    return all(stack.redis.exists(keys.match_archived(m)) for m in match_ids)


def test_archived_matches_read_over_http_as_before_and_refuse_moves_as_finished_ones(stack):
    ended, _ = _ended_matches(stack)
    playing, a, _b = new_match(stack)
    reads, lists = _reads(stack, ended), _lists(stack, ended)
    assert len(lists["lobby", "finished"]) == 2 and len(lists["lobby", "cancelled"]) == 1
    refused = {match_id: _a_move(stack, match_id, seats) for match_id, seats in ended.items()}
    assert set(refused.values()) == {(409, "MATCH_OVER")}
    with stack.archiver(ARCHIVE_AFTER="1") as archiver:
        wait_until(lambda: _archived(stack, ended, archiver), ARCHIVED_IN_SECONDS, "the ended matches archived")
        assert not stack.redis.exists(*(keys.match_events(m) for m in ended))
        assert not stack.redis.exists(*(keys.match_views(m) for m in ended))
        after = _reads(stack, ended)
        for key, (status, body, etag) in [(k, a) for k, a in after.items() if k[-1] == "view"]:
            assert status == 200 and body.pop("archived") is True
            after[key] = (status, body, etag)
        assert after == reads
        assert _lists(stack, ended) == lists
        assert {match_id: _a_move(stack, match_id, seats) for match_id, seats in ended.items()} == refused
        assert stream_version(stack, playing) > 0 and not stack.redis.exists(keys.match_archived(playing))
        assert "archived" not in stack.http.get(f"/matches/{playing}", token=a.token).body
        audit = subprocess.run([sys.executable, "-m", "services.cli", "audit", "--all"], env=stack.env, cwd=ROOT,
                               capture_output=True, text=True, timeout=300)
        assert audit.returncode == 0, audit.stdout + audit.stderr
        assert ", 0 failed" in audit.stdout
