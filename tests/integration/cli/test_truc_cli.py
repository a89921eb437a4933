"""The operator's `truc` tool against a real redis-server: replay, audit, export and import."""
import random

import orjson
import pytest
from click.testing import CliRunner

from services.api.app import Matches, act, create
from services.cli import truc
from services.projector.catchup.projector_context import ProjectorContext
from services.projector.rebuild.match_rebuilds import rebuild_match
from shared import keys
from shared.codec import encode
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels
from shared.rules import CancelReason, Rules
from shared.rules.events import MatchCancelled
from shared.seeds import SeedVault
from tests.match_support import ALICE, play_through_service

AUDIENCES = ("A", "B", "spectator")


@pytest.fixture
def env(redis_server, redis_client):
    return {"REDIS_URL": redis_server.url}


@pytest.fixture
def service(redis_client):
    return Matches(RedisEventStore(redis_client), lambda _: None, SeedVault(redis_client))


def project(client, match_id):
    rebuild_match(match_id, ProjectorContext(RedisEventStore(client), ReadModels(client)))


def run(env, *args):
    return CliRunner().invoke(truc, list(args), env=env, catch_exceptions=False)


def rewrite(client, match_id, change):
    """Tamper as someone with Redis access would: rewrite the stream with one entry changed."""
    stream = keys.match_events(match_id)
    entries = client.xrange(stream)
    client.delete(stream)
    for entry_id, fields in entries:
        client.xadd(stream, change(entry_id, dict(fields)), id=entry_id)


@pytest.fixture
def finished(service, redis_client):
    match_id = play_through_service(service, random.Random(21))
    project(redis_client, match_id)
    return match_id


def test_audit_passes_an_honest_finished_match_and_recomputes_its_deals(env, finished):
    result = run(env, "audit", finished)
    assert result.exit_code == 0, result.output
    assert "1 passed, 0 failed" in result.output and "revealed seed" in result.output


def test_audit_names_the_event_whose_card_was_changed(env, finished, redis_client):
    target = next(i for i, (_, f) in enumerate(redis_client.xrange(keys.match_events(finished)))
                  if f[b"t"] == b"card_played") + 1

    def change(entry_id, fields):
        if entry_id == f"{target}-0".encode():
            data = orjson.loads(fields[b"d"])
            data["card"] = "7H" if data["card"] != "7H" else "7S"
            fields[b"d"] = orjson.dumps(data)
        return fields

    rewrite(redis_client, finished, change)
    result = run(env, "audit", finished)
    assert result.exit_code == 1
    assert f"v{target} chain" in result.output


def test_audit_names_an_unreadable_entry(env, finished, redis_client):
    rewrite(redis_client, finished, lambda entry_id, fields: {**fields, b"d": b"{not json"}
            if entry_id == b"4-0" else fields)
    result = run(env, "audit", finished)
    assert result.exit_code == 1 and "v4" in result.output and "unreadable" in result.output


def test_audit_all_reports_every_match(env, service, redis_client, finished):
    unfinished = play_through_service(service, random.Random(2), stop_after=5)
    project(redis_client, unfinished)
    result = run(env, "audit", "--all")
    assert result.exit_code == 0 and "2 passed, 0 failed" in result.output, result.output
    assert "consistency only" in result.output


def test_audit_fails_on_read_models_that_differ_from_a_fresh_fold(env, finished, redis_client):
    models = ReadModels(redis_client)
    view = models.view(finished, "spectator")
    view["scores"] = {"A": 0, "B": 0}
    key = next(k for k in redis_client.scan_iter(match=f"*{{m:{finished}}}:views*"))
    redis_client.hset(key, "spectator", orjson.dumps(view))
    result = run(env, "audit", finished)
    assert result.exit_code == 1 and "read_models" in result.output


def test_audit_re_decides_a_resignation_and_holds_an_expiry_to_lobby_seconds_only_when_given(
        env, service, redis_client):
    resigned = play_through_service(service, random.Random(3), stop_after=4)
    act(service, resigned, ALICE, {"type": "resign"})
    expired = create(service, ALICE, {"rules": Rules(), "first_dealer": None}).match_id
    RedisEventStore(redis_client).append(expired, [encode(MatchCancelled(CancelReason.EXPIRED))], 1)
    for match_id in (resigned, expired):
        project(redis_client, match_id)

    result = run(env, "audit", "--all")
    assert result.exit_code == 0 and "2 passed, 0 failed" in result.output, result.output
    assert "LOBBY_SECONDS is not recorded" in result.output
    strict = run(env, "audit", expired, "--lobby-seconds", "3600")
    assert strict.exit_code == 1 and "v2 rules" in strict.output and "NOT_DUE" in strict.output


def test_replay_prints_rounds_tricks_and_the_winner_and_stops_at_a_version(env, finished):
    full = run(env, "replay", finished)
    assert full.exit_code == 0
    assert "Round 1" in full.output and "trick 1:" in full.output and "Match won by" in full.output
    partial = run(env, "replay", finished, "--at", "5")
    assert "v5" in partial.output and "v6" not in partial.output and "Match won by" not in partial.output


def test_export_then_import_into_an_empty_redis_audits_and_gives_equal_views(env, finished, redis_client, tmp_path):
    models = ReadModels(redis_client)
    before = {audience: models.view(finished, audience) for audience in AUDIENCES}
    exported = tmp_path / "match.jsonl"
    assert run(env, "export", finished, "-o", str(exported)).exit_code == 0
    redis_client.flushall()

    imported = run(env, "import", str(exported))

    assert imported.exit_code == 0, imported.output
    assert run(env, "audit", finished).exit_code == 0
    assert {audience: models.view(finished, audience) for audience in AUDIENCES} == before


def test_import_refuses_a_tampered_export_and_writes_nothing(env, finished, redis_client, tmp_path):
    exported = tmp_path / "match.jsonl"
    result = run(env, "export", finished, "-o", str(exported))
    assert result.exit_code == 0, result.output
    lines = exported.read_text().splitlines()
    lines[6], lines[7] = lines[7], lines[6]  # reorder two events
    exported.write_text("\n".join(lines) + "\n")
    redis_client.flushall()

    result = run(env, "import", str(exported))

    assert result.exit_code == 1 and "refused: v6" in result.output
    assert redis_client.exists(keys.match_events(finished)) == 0


def _entries(client, match_id):
    return [(entry_id, dict(fields)) for entry_id, fields in client.xrange(keys.match_events(match_id))]


def _restream(client, match_id, entries):
    """Write the stream anew from (id, fields) pairs: a tamperer with Redis access."""
    stream = keys.match_events(match_id)
    client.delete(stream)
    for entry_id, fields in entries:
        client.xadd(stream, fields, id=entry_id)


def _first(entries, event_type, nth=0):
    return [i for i, (_, f) in enumerate(entries) if f[b"t"] == event_type][nth]


def _drop(entries):
    i = _first(entries, b"card_played", 1)
    kept = entries[:i] + entries[i + 1:]
    return i + 1, [(f"{n}-0".encode(), fields) for n, (_, fields) in enumerate(kept, 1)]


def _reorder(entries):
    i = _first(entries, b"card_played", 2)
    (first_id, a), (second_id, b) = entries[i], entries[i + 1]
    return i + 1, entries[:i] + [(first_id, b), (second_id, a)] + entries[i + 2:]


def _alter_deal(entries):
    i = _first(entries, b"round_dealt", 1)
    data = orjson.loads(entries[i][1][b"d"])
    data["hands"] = {"A": data["hands"]["B"], "B": data["hands"]["A"]}
    return i + 1, entries[:i] + [(entries[i][0], {**entries[i][1], b"d": orjson.dumps(data)})] + entries[i + 1:]


@pytest.mark.parametrize("tamper", [_drop, _reorder, _alter_deal], ids=["drop", "reorder", "alter-deal"])
def test_audit_fails_on_a_tampered_stream_naming_the_first_bad_event(env, finished, redis_client, tamper):
    bad_version, entries = tamper(_entries(redis_client, finished))
    _restream(redis_client, finished, entries)

    result = run(env, "audit", finished)

    assert result.exit_code == 1, result.output
    assert f"v{bad_version} " in result.output and "0 passed, 1 failed" in result.output
