"""An archived match as the rest of the system meets it: commands refused as on a finished match,
no key brought back by a late catch-up, /health and /metrics reporting the archive, the job's name resolved."""
from __future__ import annotations

from pathlib import Path

import fakeredis

from services.archiver import archive_jobs
from services.archiver.archiving_worker import archive_queue, queue_due
from services.projector.catchup.catching_up import catch_up
from services.projector.catchup.projector_context import ProjectorContext
from shared import job_names, keys
from shared.archive import Archive
from shared.archive.archiving import Archiver
from shared.archive.files import FileArchive
from shared.archive.memory import InMemoryArchive
from shared.eventstore import RedisEventStore
from shared.readmodels import ReadModels
from tests.archiver_support import ENDED_AT, HOUR_MS, finished_match, match_keys
from tests.unit.api.support import fake_app


def _archive(client: fakeredis.FakeRedis, match_id: str, archive: Archive | None = None) -> None:
    run = Archiver(client, archive or InMemoryArchive(), HOUR_MS, clock=lambda: ENDED_AT + 2 * HOUR_MS)
    assert run.archive_one(match_id).result == "archived"


def _action(http, match_id: str, token: str) -> tuple[int, str]:
    answer = http.post(f"/matches/{match_id}/actions", json={"type": "resign"},
                       headers={"Authorization": f"Bearer {token}"})
    return answer.status_code, answer.get_json()["error"]


def test_a_command_on_an_archived_match_is_refused_as_on_any_finished_match(
        fake_redis: fakeredis.FakeRedis, tmp_path: Path) -> None:
    http = fake_app(fake_redis, {"DATA_DIR": str(tmp_path), "RATE_LIMITS": "off"}).test_client()
    alice, bob = (http.post("/players", json={"name": name}).get_json() for name in ("alice", "bob"))
    finished_match(fake_redis, "m1", players=((alice["id"], "alice"), (bob["id"], "bob")))
    finished = _action(http, "m1", alice["token"])
    _archive(fake_redis, "m1", FileArchive(tmp_path / "archive"))  # where the app's DATA_DIR keeps it
    fresh = fake_app(fake_redis, {"DATA_DIR": str(tmp_path), "RATE_LIMITS": "off"}).test_client()  # no cache
    assert finished == _action(fresh, "m1", alice["token"]) == (409, "MATCH_OVER")
    assert match_keys(fake_redis, "m1") == {keys.match_archived("m1")}  # the refusal recorded nothing


def test_a_late_catch_up_of_an_archived_match_brings_no_key_back(fake_redis: fakeredis.FakeRedis) -> None:
    finished_match(fake_redis, "m1")
    stale = ProjectorContext(RedisEventStore(fake_redis), ReadModels(fake_redis))
    _archive(fake_redis, "m1")
    catch_up("m1", stale)
    catch_up("m1", ProjectorContext(RedisEventStore(fake_redis), ReadModels(fake_redis)))
    board = ReadModels(fake_redis).scoreboard()
    assert match_keys(fake_redis, "m1") == {keys.match_archived("m1")}
    assert board["version"] == 1 and sum(row["matches_played"] for row in board["players"]) == 2


def test_health_and_metrics_report_the_archive(fake_redis: fakeredis.FakeRedis, tmp_path: Path) -> None:
    finished_match(fake_redis, "m1")
    finished_match(fake_redis, "m2", seed=2)
    _archive(fake_redis, "m1")
    http = fake_app(fake_redis, {"DATA_DIR": str(tmp_path)}).test_client()
    health = http.get("/health").get_json()
    assert health["status"] == "ok" and health["archive"]["reachable"] is True
    assert health["archive"]["waiting"] == 1 and health["archive"]["overdue"] == 1
    metrics = http.get("/metrics").get_data(as_text=True)
    assert "truc_archived_matches 1.0" in metrics and "truc_archive_waiting_matches 1.0" in metrics


def test_an_unreachable_archive_degrades_health_but_not_play(fake_redis: fakeredis.FakeRedis, tmp_path: Path) -> None:
    (tmp_path / "archive").write_text("not a directory")
    http = fake_app(fake_redis, {"DATA_DIR": str(tmp_path)}).test_client()
    answer = http.get("/health")
    assert answer.status_code == 200
    assert answer.get_json()["status"] == "degraded" and answer.get_json()["archive"]["reachable"] is False
    assert http.post("/players", json={"name": "carol"}).status_code == 201


def test_the_sweep_queues_each_due_match_once_and_the_name_resolves(fake_redis: fakeredis.FakeRedis) -> None:
    queue = archive_queue(fake_redis, "projector")
    assert queue.name == job_names.archive_queue_name("projector")
    assert queue_due(queue, ["m1", "m2"]) == 2 and queue_due(queue, ["m1", "m2", "m3"]) == 1
    assert [queue.fetch_job(job_id).func for job_id in queue.get_job_ids()] == [archive_jobs.archive] * 3
    assert set(archive_jobs.JOBS) == set(job_names.ARCHIVER_NAMES)
