"""``truc export -o FILE`` writes a file for its owner alone, never over another, and says when the
match is live (its export holds the hands still hidden: issue 29, item 6), against a real redis-server."""
from __future__ import annotations

import random
import stat

import orjson
import pytest
from click.testing import CliRunner

from services.api.app import Matches
from services.cli import truc
from shared.eventstore import RedisEventStore
from shared.seeds import SeedVault
from tests.match_support import play_through_service

LIVE_WARNING = "is still being played"


@pytest.fixture
def env(redis_server, redis_client):
    return {"REDIS_URL": redis_server.url, "LC_ALL": "C"}


@pytest.fixture
def service(redis_client):
    return Matches(RedisEventStore(redis_client), lambda _: None, SeedVault(redis_client))


def run(env, *args):
    return CliRunner().invoke(truc, list(args), env=env, catch_exceptions=False)


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_live_matchs_export_is_private_and_its_hidden_hands_are_announced(env, service, tmp_path):
    match_id = play_through_service(service, random.Random(3), stop_after=2)
    exported = tmp_path / "live.jsonl"
    result = run(env, "export", match_id, "-o", str(exported))
    assert result.exit_code == 0, result.stderr
    assert _mode(exported) == 0o600
    assert LIVE_WARNING in result.stderr and match_id in result.stderr and result.stdout == ""
    events = [orjson.loads(line) for line in exported.read_bytes().splitlines()[1:]]
    assert any(event["type"] == "round_dealt" for event in events)  # the hands are in it: hence the warning


def test_the_warning_speaks_the_terminals_language_and_goes_to_stderr_on_stdout_too(env, service):
    match_id = play_through_service(service, random.Random(4), stop_after=1)
    result = run(env, "export", match_id, "--lang", "nl")
    assert result.exit_code == 0 and "wordt nog gespeeld" in result.stderr
    assert orjson.loads(result.stdout.splitlines()[0])["match_id"] == match_id  # the export itself on stdout


def test_a_finished_match_is_exported_without_the_warning(env, service, tmp_path):
    match_id = play_through_service(service, random.Random(21))
    result = run(env, "export", match_id, "-o", str(tmp_path / "done.jsonl"))
    assert result.exit_code == 0 and LIVE_WARNING not in result.stderr and result.stderr == ""


def test_an_existing_file_is_not_overwritten_without_force(env, service, tmp_path):
    match_id = play_through_service(service, random.Random(21))
    exported = tmp_path / "kept.jsonl"
    exported.write_text("someone else's file\n")
    result = run(env, "export", match_id, "-o", str(exported))
    assert result.exit_code == 1 and "exists already" in result.stderr and "--force" in result.stderr
    assert exported.read_text() == "someone else's file\n"


def test_a_symlink_in_the_files_place_is_not_followed(env, service, tmp_path):
    match_id = play_through_service(service, random.Random(21))
    victim = tmp_path / "victim"
    victim.write_text("untouched\n")
    (tmp_path / "planted.jsonl").symlink_to(victim)
    result = run(env, "export", match_id, "-o", str(tmp_path / "planted.jsonl"))
    assert result.exit_code == 1 and victim.read_text() == "untouched\n"


def test_force_replaces_the_file_whole_with_a_private_one_and_leaves_no_temporary(env, service, tmp_path):
    match_id = play_through_service(service, random.Random(21))
    exported = tmp_path / "old.jsonl"
    exported.write_text("old\n")
    exported.chmod(0o644)
    result = run(env, "export", match_id, "-o", str(exported), "--force")
    assert result.exit_code == 0, result.stderr
    assert _mode(exported) == 0o600 and orjson.loads(exported.read_bytes().splitlines()[0])["match_id"] == match_id
    assert sorted(path.name for path in tmp_path.iterdir()) == ["old.jsonl"]


def test_a_missing_directory_is_one_sentence_and_no_traceback(env, service, tmp_path):
    match_id = play_through_service(service, random.Random(21))
    result = run(env, "export", match_id, "-o", str(tmp_path / "nowhere" / "x.jsonl"))
    assert result.exit_code == 1 and "No such file or directory" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
