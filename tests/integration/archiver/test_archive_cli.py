"""``truc archive status`` and ``truc archive now [MATCH]`` on a real Redis and the directory archive."""
from __future__ import annotations

from pathlib import Path

import redis
from click.testing import CliRunner, Result

from services.cli import truc
from services.embedded_redis import EmbeddedRedis
from shared import keys
from shared.archive.files import FileArchive
from tests.archiver_support import finished_match, match_keys


def _truc(redis_server: EmbeddedRedis, data_dir: Path, *args: str) -> Result:
    env = {"REDIS_URL": redis_server.url, "DATA_DIR": str(data_dir), "ARCHIVE_AFTER": "3600"}
    return CliRunner().invoke(truc, ["archive", *args], env=env, catch_exceptions=False)


def test_archive_now_and_status(redis_server: EmbeddedRedis, redis_client: redis.Redis, tmp_path: Path) -> None:
    finished_match(redis_client, "old1", seed=1)  # ended on 2026-01-01: long due
    finished_match(redis_client, "old2", seed=2)
    before = _truc(redis_server, tmp_path, "status")
    assert "waiting: 2 finished match(es), 2 past ARCHIVE_AFTER" in before.output
    assert "archive: reachable" in before.output
    one = _truc(redis_server, tmp_path, "now", "old1")
    assert one.exit_code == 0 and one.output.startswith("old1: archived (")
    assert match_keys(redis_client, "old1") == {keys.match_archived("old1")}
    rest = _truc(redis_server, tmp_path, "now")
    assert rest.output.startswith("old2: archived (")
    assert sorted(FileArchive(tmp_path / "archive").match_ids()) == ["old1", "old2"]
    after = _truc(redis_server, tmp_path, "status")
    assert "archived: 2 match(es)" in after.output and "waiting: 0" in after.output
    assert _truc(redis_server, tmp_path, "now").output == "No match is due.\n"
