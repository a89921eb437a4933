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

import subprocess
import sys
import uuid
from pathlib import Path

from shared import keys

from .conftest import ROOT
from .leftovers import archive_now, readers, where
from .table import joined, played, register, registered, stream_version, view


def test_a_renamed_player_shows_everywhere_at_once_and_an_erased_one_leaves_no_byte_behind(stack):
    name = f"Zq{uuid.uuid4().hex[:10]}"
    player = registered(stack, name)
    opponent = register(stack, "o")
    finished = played(stack, player, opponent)
    archive_now(stack, finished)
    playing = joined(stack, player, opponent)
    waiting = stack.http.post("/matches", {}, token=player.token).body["id"]
    matches = [finished, playing, waiting]
    view(stack, waiting, player.token, 1)

    renamed = f"Zr{uuid.uuid4().hex[:10]}"
    answer = stack.http.request("PATCH", "/players/me", {"name": renamed}, token=player.token)
    assert answer.status == 200 and answer.body == {"id": player.id, "name": renamed}
    shown = b"".join(readers(stack.http, matches, player.id))
    assert renamed.encode() in shown and name.encode() not in shown
    taken = stack.http.post("/players", {"name": name})
    assert taken.status == 409 and taken.body["error"] == "NAME_TAKEN"
    assert stack.redis.ttl(keys.player_name(name)) > 29 * 86400
    back = stack.http.request("PATCH", "/players/me", {"name": name}, token=player.token)
    assert back.status == 200  # its own reserved name: taken back
    assert name.encode() in b"".join(readers(stack.http, matches, player.id))

    before = where(stack, name)
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
    shown = b"".join(readers(stack.http, matches, player.id))
    assert name.encode() not in shown and renamed.encode() not in shown
    assert shown.count(placeholder.encode()) >= 10
    assert stack.http.post("/players", {"name": placeholder}).status == 409

    assert where(stack, name) == [] and where(stack, renamed) == []
    audit = subprocess.run([sys.executable, "-m", "services.cli", "audit", "--all"], env=stack.env, cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
    assert audit.returncode == 0 and ", 0 failed" in audit.stdout, audit.stdout + audit.stderr

