"""Schema 2 seats players by id: an export names them in its header from the player directory,
and an import enters the names of players this server does not know, against a real redis-server."""
from __future__ import annotations

import orjson
import pytest
from click.testing import CliRunner

from services.cli import truc
from shared import keys
from shared.readmodels import ReadModels
from tests.golden.record import GOLDEN

SCHEMA_1 = GOLDEN / "schema-1" / "01-points-default-rules.jsonl"


@pytest.fixture
def env(redis_server, redis_client):
    return {"REDIS_URL": redis_server.url, "LC_ALL": "C"}


def run(env, *args):
    return CliRunner().invoke(truc, list(args), env=env, catch_exceptions=False)


def _seated(path) -> dict[str, str]:
    """The schema-1 export's players, as its events recorded them."""
    events = [orjson.loads(line) for line in path.read_bytes().splitlines()[1:3]]
    return {events[0]["data"]["creator_id"]: events[0]["data"]["creator_name"],
            events[1]["data"]["player_id"]: events[1]["data"]["player_name"]}


def test_a_schema_1_import_enters_its_players_names_and_its_views_and_export_show_them(env, redis_client, tmp_path):
    players = _seated(SCHEMA_1)
    match_id = orjson.loads(SCHEMA_1.read_bytes().splitlines()[0])["match_id"]

    result = run(env, "import", str(SCHEMA_1))

    assert result.exit_code == 0, result.output
    shown = ReadModels(redis_client).summary(match_id)["players"]
    assert {seat["id"]: seat["name"] for seat in shown.values()} == players
    out = tmp_path / "again.jsonl"
    assert run(env, "export", match_id, "-o", str(out)).exit_code == 0
    assert orjson.loads(out.read_bytes().splitlines()[0])["players"] == players


def test_an_import_never_renames_a_player_this_server_knows(env, redis_client):
    players = _seated(SCHEMA_1)
    known = next(iter(players))
    redis_client.hset(keys.player(known), mapping={"id": known, "name": "erased player 1"})

    assert run(env, "import", str(SCHEMA_1)).exit_code == 0

    assert redis_client.hget(keys.player(known), "name") == b"erased player 1"
