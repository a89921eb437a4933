"""``truc erase PLAYER``, the operator's erasure, on the running stack.

A player with a unique name has a finished match (archived), a match being played, a waiting
one and two tokens (its registration's and another device's session). The operator runs
``truc erase`` with its id: the command names the placeholder; the API refuses both tokens;
the match being played is resigned, the waiting one cancelled; every reader shows the
placeholder and never the name; a scan of every Redis key and value, the AOF and RDB, the
archive and every file under DATA_DIR finds the name nowhere (it found it before); ``truc audit``
passes on each match. No one may register the placeholder; the erased name's claims are released.
Run again, the command keeps the placeholder.
"""
from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

from shared import keys
from tests.waiting import wait_until

from .conftest import ROOT
from .leftovers import archive_now, read_until_unnamed, readers, where
from .table import joined, played, register, registered, stream_version, view


def truc(stack, *args: str) -> subprocess.CompletedProcess:
    """The operator's ``truc`` run as on the server: its own process, the stack's settings."""
    return subprocess.run([sys.executable, "-m", "services.cli", *args], env=stack.env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_truc_erase_refuses_the_tokens_shows_the_placeholder_everywhere_and_leaves_no_byte_of_the_name(stack):
    name = f"Zt{uuid.uuid4().hex[:10]}"
    player, opponent = registered(stack, name), register(stack, "o")
    finished = played(stack, player, opponent)
    archive_now(stack, finished)
    playing = joined(stack, player, opponent)
    waiting = stack.http.post("/matches", {}, token=player.token).body["id"]
    matches = [finished, playing, waiting]
    device = stack.http.post("/sessions", {"name": name, "password": "a long password"})
    assert device.status == 201, device.body
    tokens = (player.token, device.body["token"])
    for token in tokens:  # each known to the API (and kept in its processes' caches)
        assert stack.http.post("/stream-tickets", token=token).status == 201
    view(stack, waiting, player.token, 1)
    assert name.encode() in b"".join(readers(stack.http, matches, player.id))
    before = where(stack, name)
    assert {Path(place).name for place in before} >= {"redis", "appendonly.aof", "dump.rdb"}
    assert any(place.startswith("archive") for place in before)
    erased_so_far = int(stack.redis.get(keys.ERASED_PLAYERS) or 0)

    erased = truc(stack, "erase", player.id)

    assert erased.returncode == 0, erased.stdout + erased.stderr
    placeholder = stack.redis.hget(keys.player(player.id), "name").decode()
    assert placeholder == f"erased player {erased_so_far + 1}"
    assert erased.stdout == f"erased {player.id}: now shown as {placeholder!r}\n"
    assert name not in erased.stdout + erased.stderr
    wait_until(lambda: all(stack.http.post("/stream-tickets", token=t).status == 401 for t in tokens), 5,
               "both tokens refused by the API")
    over = view(stack, playing, opponent.token, stream_version(stack, playing))
    assert over["status"] == "finished" and over["winner"] == "B"  # resigned (R31; aborted: before round 1 ended)
    assert view(stack, waiting, None, stream_version(stack, waiting))["status"] == "cancelled"
    shown = read_until_unnamed(stack.http, matches, player.id, name)
    assert name.encode() not in shown
    assert shown.count(placeholder.encode()) >= 10

    assert where(stack, name) == []
    for match_id in matches:
        audited = truc(stack, "audit", match_id)
        assert audited.returncode == 0 and "1 passed, 0 failed" in audited.stdout, audited.stdout + audited.stderr

    again = truc(stack, "erase", player.id)
    assert again.returncode == 0 and again.stdout == erased.stdout, again.stdout + again.stderr
    assert int(stack.redis.get(keys.ERASED_PLAYERS)) == erased_so_far + 1  # numbered once
    assert stack.redis.hget(keys.player(player.id), "name").decode() == placeholder
    taken = stack.http.post("/players", {"name": placeholder})
    assert taken.status == 409, taken.body
    newcomer = stack.http.post("/players", {"name": name})  # the claims on the name went with it
    assert newcomer.status == 201 and newcomer.body["id"] != player.id, newcomer.body
    assert stack.http.get(f"/players/{player.id}").body["name"] == placeholder
