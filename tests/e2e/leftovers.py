"""Where a name is left on the running stack: every reader's answer naming a player, every key and
value in Redis, its AOF and RDB files, the archive and every file under DATA_DIR."""
from __future__ import annotations

from pathlib import Path

import zstandard

from shared import keys
from tests.waiting import wait_for, wait_until

from .conftest import Stack
from .http import Http

ARCHIVED_IN_SECONDS = 60  # ARCHIVE_AFTER=1 and a sweep a second: a few seconds at most, unless something is wrong


def archive_now(stack: Stack, match_id: str) -> None:
    """The finished match moved to the archive by an archiver worker (``ARCHIVE_AFTER=1``), as ``make run`` runs one."""
    with stack.archiver(ARCHIVE_AFTER="1") as archiver:
        wait_until(lambda: archiver.poll() is None and stack.redis.exists(keys.match_archived(match_id)),
                   ARCHIVED_IN_SECONDS, "the finished match archived")


def readers(http: Http, match_ids: list[str], player_id: str) -> list[bytes]:
    """Every answer that names the match's players: views, replays, lobbies, lists, rows, the scoreboard."""
    seen = []
    for match_id in match_ids:
        shown = http.get(f"/matches/{match_id}")
        seen.append(shown.raw)
        seen.append(http.get(f"/matches/{match_id}/replay?version={shown.body['version']}").raw)
    for status in keys.LOBBY_STATUSES:
        seen.append(http.get(f"/matches?status={status}&limit=100").raw)
        seen.append(http.get(f"/players/{player_id}/matches?status={status}&limit=100").raw)
    seen.append(http.get(f"/players/{player_id}").raw)
    seen.append(http.get("/scoreboard?limit=100").raw)
    return seen


def read_until_unnamed(http: Http, match_ids: list[str], player_id: str, name: str) -> bytes:
    """Every reader of ``http``'s process naming the matches' players, read until none shows ``name`` (5 s at most)."""
    return wait_for(lambda: b"".join(readers(http, match_ids, player_id)), lambda seen: name.encode() not in seen, 5)


def redis_bytes(stack: Stack) -> bytes:
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


def persisted(stack: Stack) -> None:
    """The AOF rewritten and an RDB saved, both finished (strings stored uncompressed, so the scan sees them)."""
    stack.redis.config_set("rdbcompression", "no")
    stack.redis.bgrewriteaof()
    wait_until(lambda: stack.redis.info("persistence")["aof_rewrite_in_progress"] == 0
               and stack.redis.info("persistence")["aof_rewrite_scheduled"] == 0, 60, "the AOF rewrite")
    saved = stack.redis.lastsave()
    stack.redis.bgsave()
    wait_until(lambda: stack.redis.info("persistence")["rdb_bgsave_in_progress"] == 0
               and stack.redis.lastsave() >= saved, 60, "the RDB save")


def files_bytes(root: Path) -> dict[str, bytes]:
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


def where(stack: Stack, name: str) -> list[str]:
    """Every place the scan finds ``name`` (its bytes, any case): "redis", or a file's path under DATA_DIR."""
    persisted(stack)
    wanted = name.lower().encode()
    places = ["redis"] if wanted in redis_bytes(stack).lower() else []
    return places + [path for path, data in files_bytes(stack.logs).items() if wanted in data.lower()]
