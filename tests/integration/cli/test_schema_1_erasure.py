"""An erased player's name leaves the matches recorded in schema 1 (which held it in their events):
the streams and archived records are re-chained without it, the audit passes and notes it, and an
import of an export naming an erased id stores it without the name; against a real redis-server."""
from __future__ import annotations

from pathlib import Path

import orjson
import pytest
import zstandard
from click.testing import CliRunner

from services.cli import truc
from services.cli.exports import read_export
from shared import keys
from shared.audit import audit_events
from shared.eventstore import RedisEventStore, lua
from shared.fold import FoldedMatch, fold
from shared.readmodels import AUDIENCES, ReadModels
from shared.rechaining import rechainings
from tests.golden.record import GOLDEN
from tests.waiting import wait_until

RESIGNED = GOLDEN / "schema-1" / "13-resigned.jsonl"  # alice-id "alice" created, carol-7 "Carol" joined
MATCH = "golden-schema-1-13"
ERASED, NAME = "carol-7", b"Carol"  # case matters: the id holds "carol"


@pytest.fixture
def env(redis_server, redis_client, tmp_path):
    return {"REDIS_URL": redis_server.url, "LC_ALL": "C", "ARCHIVE_URL": f"file:{tmp_path / 'archive'}"}


def run(env, *args):
    return CliRunner().invoke(truc, list(args), env=env, catch_exceptions=False)


def _stream_bytes(client) -> bytes:
    """The match's stream as Redis holds it: every field of every entry (XRANGE, raw)."""
    return b"\n".join(b for _, fields in client.xrange(keys.match_events(MATCH)) for pair in fields.items()
                      for b in pair)


def _archive_bytes(root: Path) -> bytes:
    return b"\n".join(zstandard.ZstdDecompressor().decompressobj().decompress(path.read_bytes())
                      for path in root.rglob("*.zst"))


def _views(client) -> dict[str, bytes]:
    models = ReadModels(client)
    served = models.at(models.generation())
    return {audience: orjson.dumps(served.view(MATCH, audience)) for audience in AUDIENCES}


def _placeholder(client) -> bytes:
    return client.hget(keys.player(ERASED), "name")


def test_erasing_a_schema_1_player_rewrites_the_stream_without_the_name_and_the_audit_notes_it(
        env, redis_client, tmp_path):
    assert run(env, "import", str(RESIGNED)).exit_code == 0
    views, before = _views(redis_client), redis_client.xrange(keys.match_events(MATCH))
    folded = fold(FoldedMatch(MATCH), RedisEventStore(redis_client).read(MATCH)).state
    assert NAME in _stream_bytes(redis_client)

    assert run(env, "erase", ERASED).exit_code == 0

    assert NAME not in _stream_bytes(redis_client)
    assert b'"creator_name":"alice"' in _stream_bytes(redis_client)  # only the erased player's events change
    after = redis_client.xrange(keys.match_events(MATCH))
    assert [entry_id for entry_id, _ in after] == [entry_id for entry_id, _ in before]
    assert [(f[b"at"], f[b"t"]) for _, f in after] == [(f[b"at"], f[b"t"]) for _, f in before]
    assert [f[b"d"] for _, f in after][2:] == [f[b"d"] for _, f in before][2:]  # later events unchanged
    assert [f[b"s"] for _, f in after][:2] == [b"1", b"2"]  # alice's creation stays schema 1
    [record] = rechainings(redis_client, MATCH)
    assert (record.old_head, record.new_head, record.reason) == (before[-1][1][b"h"].decode(),
                                                                 after[-1][1][b"h"].decode(), "erasure")
    assert fold(FoldedMatch(MATCH), RedisEventStore(redis_client).read(MATCH)).state == folded
    placeholder = _placeholder(redis_client)
    assert _views(redis_client) == {a: v.replace(NAME, placeholder) for a, v in views.items()}
    audited = run(env, "audit", MATCH)
    assert audited.exit_code == 0, audited.output
    assert "re-chained at v33 (erasure)" in audited.output


def test_an_export_taken_before_the_erasure_still_audits_on_its_own_chain(env, redis_client, tmp_path):
    assert run(env, "import", str(RESIGNED)).exit_code == 0
    earlier = tmp_path / "earlier.jsonl"
    assert run(env, "export", MATCH, "-o", str(earlier)).exit_code == 0
    assert run(env, "erase", ERASED).exit_code == 0

    exported = read_export(earlier.read_bytes().splitlines())
    assert audit_events(MATCH, exported.events).ok
    assert exported.events[-1].hash == rechainings(redis_client, MATCH)[0].old_head


def test_an_archived_schema_1_match_is_rechained_in_the_archive_and_its_index(env, redis_client, tmp_path):
    assert run(env, "import", str(RESIGNED)).exit_code == 0
    assert run(env, "archive", "now", MATCH).exit_code == 0
    assert redis_client.exists(keys.match_archived(MATCH)) and not redis_client.exists(keys.match_events(MATCH))
    assert NAME in _archive_bytes(tmp_path / "archive")

    assert run(env, "erase", ERASED).exit_code == 0

    assert NAME not in _archive_bytes(tmp_path / "archive")
    [record] = rechainings(redis_client, MATCH)
    assert record.new_head == redis_client.get(keys.match_archived(MATCH))[:32].hex()
    audited = run(env, "audit", MATCH)
    assert audited.exit_code == 0, audited.output
    assert "re-chained at v33 (erasure)" in audited.output
    replayed = run(env, "replay", MATCH)
    assert replayed.exit_code == 0 and "Carol" not in replayed.output and _placeholder(redis_client).decode() \
        in replayed.output


def test_an_import_naming_an_erased_player_is_stored_without_the_name(env, redis_client):
    redis_client.hset(keys.player(ERASED), mapping={"id": ERASED, "name": "erased player 4", "erased": "1"})

    imported = run(env, "import", str(RESIGNED))

    assert imported.exit_code == 0, imported.output
    assert "names a player erased here" in imported.output
    assert NAME not in _stream_bytes(redis_client)
    [record] = rechainings(redis_client, MATCH)
    assert record.reason == "erased before import"
    assert record.old_head == orjson.loads(RESIGNED.read_bytes().splitlines()[-1])["hash"]
    assert redis_client.hget(keys.player(ERASED), "name") == b"erased player 4"
    assert b"erased player 4" in _views(redis_client)["spectator"]
    audited = run(env, "audit", MATCH)
    assert audited.exit_code == 0 and "(erased before import)" in audited.output, audited.output


def test_after_an_aof_rewrite_the_name_is_in_no_persisted_file(env, redis_server, redis_client):
    assert run(env, "import", str(RESIGNED)).exit_code == 0
    assert run(env, "erase", ERASED).exit_code == 0

    redis_client.config_set("rdbcompression", "no")
    redis_client.bgrewriteaof()
    wait_until(lambda: redis_client.info("persistence")["aof_rewrite_in_progress"] == 0
               and redis_client.info("persistence")["aof_rewrite_scheduled"] == 0, 60, "the AOF rewrite")

    aof = [path for path in Path(redis_server.data_dir).rglob("*") if path.is_file() and ".aof" in path.name]
    assert aof
    assert all(NAME not in path.read_bytes() for path in aof)


def test_a_rechaining_refuses_a_stream_that_changed_since_it_was_read(env, redis_client):
    assert run(env, "import", str(RESIGNED)).exit_code == 0
    before = redis_client.xrange(keys.match_events(MATCH))
    script_keys = [keys.match_events(MATCH), keys.match_rewriting(MATCH), keys.match_rechained(MATCH)]

    stale_version = lua.RECHAIN(redis_client, script_keys, [len(before) - 1, before[-1][1][b"h"], b"{}"])
    stale_head = lua.RECHAIN(redis_client, script_keys, [len(before), "0" * 64, b"{}"])

    assert (stale_version, stale_head) == (0, 0)
    assert redis_client.xrange(keys.match_events(MATCH)) == before
    assert not redis_client.exists(keys.match_rechained(MATCH), keys.match_rewriting(MATCH))
