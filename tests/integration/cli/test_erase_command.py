"""``truc erase`` of a player the server does not know, or of something that is no player id: a clear
refusal, a non-zero exit, and not one key or value of Redis changed; against a real redis-server
holding a recorded match and its players, which an erasure of one of them does change."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from services.cli import truc
from shared import keys
from tests.golden.record import GOLDEN

RECORDED = GOLDEN / "schema-1" / "13-resigned.jsonl"  # alice-id "alice" created, carol-7 "Carol" joined


@pytest.fixture
def env(redis_server, redis_client, tmp_path):
    return {"REDIS_URL": redis_server.url, "ARCHIVE_URL": f"file:{tmp_path / 'archive'}"}


def run(env, *args):
    return CliRunner().invoke(truc, list(args), env=env, catch_exceptions=False)


def _everything(client) -> dict[bytes, bytes | None]:
    """Every key of Redis and its value (DUMP: whatever the type)."""
    return {key: client.dump(key) for key in client.scan_iter(count=1000)}


@pytest.mark.parametrize(("player_id", "exit_code", "said"), [
    ("nobody-7", 1, "no player 'nobody-7'"),
    ("carol 7!", 2, "'carol 7!' is not a player id"),
])
def test_erasing_an_unknown_player_says_so_exits_non_zero_and_records_nothing(env, redis_client, player_id,
                                                                             exit_code, said):
    assert run(env, "import", str(RECORDED)).exit_code == 0
    assert redis_client.exists(keys.player("carol-7"))
    before = _everything(redis_client)

    refused = run(env, "erase", player_id)

    assert refused.exit_code == exit_code, refused.output
    assert said in refused.output and "erased" not in refused.output
    assert _everything(redis_client) == before
    erased = run(env, "erase", "carol-7")  # a player it knows: the same scan sees the erasure
    assert erased.exit_code == 0, erased.output
    assert _everything(redis_client) != before
