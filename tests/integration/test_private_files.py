"""Secrets and game data are created private: the AOF, the data folder and token files."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis

from services import stack
from services.embedded_redis import EmbeddedRedis, free_port
from shared.private_files import private_dir, read_secret, write_secret

ROOT = Path(__file__).resolve().parents[2]


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


@pytest.fixture
def open_umask():
    """A careless parent (umask 022): what the code creates must be private anyway."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def test_the_embedded_servers_folder_and_aof_are_the_owners_only(tmp_path: Path, open_umask: None) -> None:
    data = tmp_path / "redis"
    with EmbeddedRedis(data) as server:
        client = redis.Redis.from_url(server.url)
        client.set("hand", "9S JS KS")
        client.close()
    assert _mode(data) == 0o700
    aof = data / "appendonly.aof"
    assert aof.exists() and _mode(aof) & 0o077 == 0


def test_the_launched_redis_of_make_run_keeps_its_files_private(tmp_path: Path, open_umask: None) -> None:
    data, port = tmp_path / "data" / "redis", free_port()
    process = subprocess.Popen([sys.executable, "-m", "services.embedded_redis", "--port", str(port),
                                "--data-dir", str(data)], cwd=ROOT)
    try:
        client = redis.Redis(port=port)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.set("seed", "secret")
                break
            except redis.ConnectionError:
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)
        client.close()
    finally:
        process.terminate()
        process.wait(10)
    assert _mode(data) == 0o700
    assert [path.name for path in data.iterdir() if _mode(path) & 0o077] == []


def test_a_private_folder_that_exists_open_is_tightened(tmp_path: Path) -> None:
    folder = tmp_path / "var"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    private_dir(folder)
    assert _mode(folder) == 0o700


def test_a_secret_is_created_0600_and_never_through_a_symlink(tmp_path: Path, open_umask: None) -> None:
    path = tmp_path / "bot.token"
    write_secret(path, "s3cret")
    assert _mode(path) == 0o600 and read_secret(path) == "s3cret"
    target, link = tmp_path / "elsewhere", tmp_path / "link.token"
    link.symlink_to(target)
    with pytest.raises(FileExistsError):
        write_secret(link, "leaked")
    assert not target.exists()
    with pytest.raises(OSError):
        read_secret(link)


def test_the_bot_token_of_make_run_is_made_once_private(tmp_path: Path, open_umask: None) -> None:
    token = stack._bot_token(tmp_path / "var")
    assert len(token) >= 32 and stack._bot_token(tmp_path / "var") == token
    assert _mode(tmp_path / "var" / "bot.token") == 0o600 and _mode(tmp_path / "var") == 0o700
