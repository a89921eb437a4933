"""``truc archive backfill``: the matches that ended before the due list existed are listed, once."""
from __future__ import annotations

from pathlib import Path

import redis
from click.testing import CliRunner, Result

from services.cli import truc
from services.embedded_redis import EmbeddedRedis
from services.projector.catchup.catching_up import catch_up
from services.projector.catchup.projector_context import ProjectorContext
from shared import keys
from shared.codec import encode
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels
from shared.rules import CancelReason
from shared.rules.events import MatchCancelled
from tests.archiver_support import ENDED_AT, finished_match
from tests.projector_support import random_match


def _truc(redis_server: EmbeddedRedis, data_dir: Path, *args: str) -> Result:
    env = {"REDIS_URL": redis_server.url, "DATA_DIR": str(data_dir), "ARCHIVE_AFTER": "3600"}
    return CliRunner().invoke(truc, ["archive", *args], env=env, catch_exceptions=False)


def _due(client: redis.Redis) -> dict[str, int]:
    return {member.decode(): int(score) for member, score in client.zrange(keys.ARCHIVE_DUE, 0, -1, withscores=True)}


def _old_matches(client: redis.Redis) -> None:
    """Three matches ended long ago (two won, one cancelled at ENDED_AT + 5 s) and one still played, none listed."""
    for n in (1, 2):
        finished_match(client, f"won{n}", seed=n)
    created = random_match(3, "cancelled")[0]
    RedisEventStore(client, clock=lambda: ENDED_AT + 5_000).append(
        "cancelled", [encode(created), encode(MatchCancelled(CancelReason.CREATOR))], 0)
    playing = [encode(event) for event in random_match(4, "playing")[:9]]
    RedisEventStore(client, clock=lambda: ENDED_AT).append("playing", playing, 0)
    for match_id in ("cancelled", "playing"):
        catch_up(match_id, ProjectorContext(RedisEventStore(client), ReadModels(client)))
    client.delete(keys.ARCHIVE_DUE)  # the due list came after they ended


def test_backfill_lists_every_finished_match_by_its_end_and_lists_nothing_twice(
        redis_server: EmbeddedRedis, redis_client: redis.Redis, tmp_path: Path) -> None:
    _old_matches(redis_client)
    first = _truc(redis_server, tmp_path, "backfill", "--batch", "3")  # two batches
    assert first.exit_code == 0, first.output
    assert first.output == "streams: 4; finished: 3; newly listed: 3 (0 listed already)\n"
    assert _due(redis_client) == {"won1": ENDED_AT, "won2": ENDED_AT, "cancelled": ENDED_AT + 5_000}
    again = _truc(redis_server, tmp_path, "backfill")
    assert again.output == "streams: 4; finished: 3; newly listed: 0 (3 listed already)\n"
    assert _due(redis_client) == {"won1": ENDED_AT, "won2": ENDED_AT, "cancelled": ENDED_AT + 5_000}
    archived = _truc(redis_server, tmp_path, "now")
    lines = sorted(archived.output.splitlines())  # listed, so the archiver finds them due
    assert [line.split(": ")[0] for line in lines] == ["cancelled", "won1", "won2"]
    assert all(": archived (" in line for line in lines) and _due(redis_client) == {}
    assert _truc(redis_server, tmp_path, "backfill").output == \
        "streams: 1; finished: 0; newly listed: 0 (0 listed already)\n"  # the archived ones have no stream left


def test_backfill_keeps_the_end_the_projector_listed(redis_server: EmbeddedRedis, redis_client: redis.Redis,
                                                    tmp_path: Path) -> None:
    _old_matches(redis_client)
    redis_client.zadd(keys.ARCHIVE_DUE, {"won1": ENDED_AT + 1})
    assert "newly listed: 2 (1 listed already)" in _truc(redis_server, tmp_path, "backfill").output
    assert _due(redis_client)["won1"] == ENDED_AT + 1


def test_a_stream_whose_last_event_cannot_be_read_is_named_and_the_others_listed(
        redis_server: EmbeddedRedis, redis_client: redis.Redis, tmp_path: Path) -> None:
    _old_matches(redis_client)
    redis_client.xadd(keys.match_events("broken"), {"x": "1"}, id="1-0")
    result = _truc(redis_server, tmp_path, "backfill")
    assert result.exit_code == 1
    assert result.output.splitlines() == ["streams: 5; finished: 3; newly listed: 3 (0 listed already)",
                                          "broken: unreadable last event (truc audit broken)"]
    assert set(_due(redis_client)) == {"won1", "won2", "cancelled"}
