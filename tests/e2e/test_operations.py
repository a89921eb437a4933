"""What an operator relies on: health, re-run jobs counting nothing twice, worker health checks."""
import random
import subprocess
import sys

from rq import Queue

from services.api.catch_up_requests import enqueue_catch_up
from tests.waiting import wait_for

from .conftest import ROOT
from .table import new_match, play_to_the_end


def test_health_reports_redis_and_projector_lag(stack):
    body = stack.http.get("/health").body
    assert body["status"] == "ok" and body["redis"] is True and body["projector_lag"] >= 0


def test_re_running_catch_up_jobs_counts_a_finished_match_once(stack):
    match_id, a, b = new_match(stack)
    play_to_the_end(stack, match_id, {"A": a, "B": b}, random.Random(11))
    before = {p.id: stack.http.get(f"/players/{p.id}").body for p in (a, b)}
    queue = Queue("projector", connection=stack.redis)
    for _ in range(5):
        enqueue_catch_up(queue, match_id)
    wait_for(lambda: queue.count or queue.started_job_registry.count, lambda busy: not busy, seconds=10)
    assert not queue.count and not queue.started_job_registry.count, "the jobs did not run in 10 s"

    after = {p.id: stack.http.get(f"/players/{p.id}").body for p in (a, b)}
    assert after == before
    assert {row["matches_played"] for row in after.values()} == {1}


def test_the_worker_health_check_sees_the_running_workers(stack):
    checked = subprocess.run([sys.executable, "-m", "services.projector", "health"], env=stack.env, cwd=ROOT,
                             capture_output=True, text=True, timeout=30)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "2 projector worker(s)" in checked.stdout
