"""Renaming and erasing a player on the running stack, and nothing of an erased name left behind.

A player with a unique name plays a finished match (then archived), a match still being
played and a waiting one. Renamed, the new name shows at once in every reader and the old
one is refused to others. Erased, its token is refused, its live match is resigned, its
waiting one cancelled, every reader shows the placeholder, and a scan of every Redis key
and value, the AOF and an RDB saved after a rewrite, the archive (decompressed) and every
file under DATA_DIR finds the name nowhere; the audit passes on every match. The same scan
run before the erasure finds the name in each place: it can see what it looks for.
"""
from __future__ import annotations

import random
import subprocess
import sys
import uuid
from pathlib import Path

import zstandard

from shared import keys
from tests.waiting import wait_until

from .conftest import ROOT
from .table import Seated, play_to_the_end, register, stream_version, view

ARCHIVED_IN_SECONDS = 60


def _readers(stack, match_ids: list[str], player: Seated) -> list[bytes]:
    """Every answer that names the match's players: views, replays, lobbies, lists, rows, the scoreboard."""
    seen = []
    for match_id in match_ids:
        shown = stack.http.get(f"/matches/{match_id}")
        seen.append(shown.raw)
        seen.append(stack.http.get(f"/matches/{match_id}/replay?version={shown.body['version']}").raw)
    for status in keys.LOBBY_STATUSES:
        seen.append(stack.http.get(f"/matches?status={status}&limit=100").raw)
        seen.append(stack.http.get(f"/players/{player.id}/matches?status={status}&limit=100").raw)
    seen.append(stack.http.get(f"/players/{player.id}").raw)
    seen.append(stack.http.get("/scoreboard?limit=100").raw)
    return seen


def _redis_bytes(stack) -> bytes:
    """Every key and every value in Redis, as bytes (DUMP: whatever the type)."""
    found = []
    for key in stack.redis.scan_iter(count=1000):
        found.append(key)
        dumped = stack.redis.dump(key)
        found.append(dumped or b"")
        kind = stack.redis.type(key)
        if kind == b"hash":
            found += [b for pair in stack.redis.hgetall(key).items() for b in pair]
        elif kind == b"zset":
            found += stack.redis.zrange(key, 0, -1)
        elif kind == b"set":
            found += list(stack.redis.smembers(key))
        elif kind == b"string":
            found.append(stack.redis.get(key))
        elif kind == b"stream":
            found += [b for _, fields in stack.redis.xrange(key) for pair in fields.items() for b in pair]
    return b"\n".join(found)


def _persisted(stack) -> None:
    """The AOF rewritten and an RDB saved, both finished (strings stored uncompressed, so the scan sees them)."""
    stack.redis.config_set("rdbcompression", "no")
    stack.redis.bgrewriteaof()
    wait_until(lambda: stack.redis.info("persistence")["aof_rewrite_in_progress"] == 0
               and stack.redis.info("persistence")["aof_rewrite_scheduled"] == 0, 60, "the AOF rewrite")
    saved = stack.redis.lastsave()
    stack.redis.bgsave()
    wait_until(lambda: stack.redis.info("persistence")["rdb_bgsave_in_progress"] == 0
               and stack.redis.lastsave() >= saved, 60, "the RDB save")


def _files_bytes(root: Path) -> dict[str, bytes]:
    """Every file under DATA_DIR (the AOF, the RDB, the archive's records decompressed, the logs)."""
    files = {}
    for path in root.rglob("*"):
        if not path.is_file() or path.is_socket():
            continue
        data = path.read_bytes()
        if path.suffix == ".zst":
            data = zstandard.ZstdDecompressor().decompressobj().decompress(data)
        files[str(path.relative_to(root))] = data
    return files


def _where(stack, name: str) -> list[str]:
    """Every place the scan finds ``name`` (its bytes, any case)."""
    _persisted(stack)
    wanted = name.lower().encode()
    places = ["redis"] if wanted in _redis_bytes(stack).lower() else []
    return places + [path for path, data in _files_bytes(stack.logs).items() if wanted in data.lower()]


def test_a_renamed_player_shows_everywhere_at_once_and_an_erased_one_leaves_no_byte_behind(stack):
    name = f"Zq{uuid.uuid4().hex[:10]}"
    player = _registered(stack, name)
    opponent = register(stack, "o")
    finished = _played(stack, player, opponent)
    with stack.archiver(ARCHIVE_AFTER="1") as archiver:
        wait_until(lambda: archiver.poll() is None and stack.redis.exists(keys.match_archived(finished)),
                   ARCHIVED_IN_SECONDS, "the finished match archived")
    playing = _joined(stack, player, opponent)
    waiting = stack.http.post("/matches", {}, token=player.token).body["id"]
    matches = [finished, playing, waiting]
    view(stack, waiting, player.token, 1)

    renamed = f"Zr{uuid.uuid4().hex[:10]}"
    answer = stack.http.request("PATCH", "/players/me", {"name": renamed}, token=player.token)
    assert answer.status == 200 and answer.body == {"id": player.id, "name": renamed}
    shown = b"".join(_readers(stack, matches, player))
    assert renamed.encode() in shown and name.encode() not in shown
    taken = stack.http.post("/players", {"name": name})
    assert taken.status == 409 and taken.body["error"] == "NAME_TAKEN"
    assert stack.redis.ttl(keys.player_name(name)) > 29 * 86400
    back = stack.http.request("PATCH", "/players/me", {"name": name}, token=player.token)
    assert back.status == 200  # its own reserved name: taken back
    assert name.encode() in b"".join(_readers(stack, matches, player))

    before = _where(stack, name)
    assert {Path(place).name for place in before} >= {"redis", "appendonly.aof", "dump.rdb"}
    assert any(place.startswith("archive") for place in before)

    device = stack.http.post("/sessions", {"name": name, "password": "a long password"})
    assert device.status == 201, device.body
    erased = stack.http.request("DELETE", "/players/me", token=player.token)
    assert erased.status == 204
    for token in (player.token, device.body["token"]):  # the registration's and another device's
        assert stack.http.post("/stream-tickets", token=token).status == 401
    over = view(stack, playing, opponent.token, stream_version(stack, playing))
    assert over["status"] == "finished" and over["winner"] == "B"  # resigned (R31; aborted: before round 1 ended)
    assert view(stack, waiting, None, stream_version(stack, waiting))["status"] == "cancelled"
    placeholder = stack.redis.hget(keys.player(player.id), "name").decode()
    assert placeholder.startswith("erased player ")
    shown = b"".join(_readers(stack, matches, player))
    assert name.encode() not in shown and renamed.encode() not in shown
    assert shown.count(placeholder.encode()) >= 10
    assert stack.http.post("/players", {"name": placeholder}).status == 409

    assert _where(stack, name) == [] and _where(stack, renamed) == []
    audit = subprocess.run([sys.executable, "-m", "services.cli", "audit", "--all"], env=stack.env, cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
    assert audit.returncode == 0 and ", 0 failed" in audit.stdout, audit.stdout + audit.stderr


def _registered(stack, name: str) -> Seated:
    reply = stack.http.post("/players", {"name": name, "password": "a long password"})
    assert reply.status == 201, reply.body
    return Seated(reply.body["id"], name, reply.body["token"])


def _played(stack, player: Seated, opponent: Seated) -> str:
    match_id = _joined(stack, player, opponent)
    play_to_the_end(stack, match_id, {"A": player, "B": opponent}, random.Random(5))
    return match_id


def _joined(stack, player: Seated, opponent: Seated) -> str:
    match_id = stack.http.post("/matches", {}, token=player.token).body["id"]
    assert stack.http.post(f"/matches/{match_id}/join", {}, token=opponent.token).status == 200
    return match_id
