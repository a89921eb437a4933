"""SIGKILL projector workers during live play and during `truc rebuild`, then start new ones.

A killed worker takes its running job with it, half done. Whatever it had written, the
read models must end equal to a clean rebuild from the streams, and every finished match
must count exactly once on the scoreboard. A rebuild whose workers are all killed while
running its jobs still completes: the new workers queue the orphaned jobs again.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
import time

import pytest

from services.projector.queues import rebuild_queue
from shared.eventstore import RedisEventStore
from shared.readmodels.generations import read_pointer
from tests.projector_support import append_in_batches, random_match
from tests.reliability.conftest import StartStack
from tests.reliability.invariants import (
    audit_failures,
    read_model_differences,
    recount,
    scoreboard_rows,
    wait_projected,
)
from tests.reliability.load import Load
from tests.reliability.stack import ROOT, Stack

PLAYERS = [(f"h{n}", f"history-{n}") for n in range(6)]


def kill_workers_under_load(stack: Stack, load: Load, kills: int, rng: random.Random) -> None:
    """SIGKILL a random worker ``kills`` times, at random moments, starting a new one each time."""
    load.wait_for(events=15)
    for _ in range(kills):
        time.sleep(rng.uniform(0.1, 0.5))
        victim = rng.choice(stack.live_workers())
        stack.kill_worker(victim)
        stack.start_worker()
    load.wait_for(events=15)


def assert_exact(stack: Stack, match_ids: set[str], player_ids: set[str]) -> None:
    """Streams intact, read models equal to a clean rebuild, scoreboard equal to a recount."""
    client = stack.client()
    assert audit_failures(client, match_ids) == {}
    wait_projected(client, match_ids, timeout=30)
    assert read_model_differences(client, match_ids) == []
    assert scoreboard_rows(client, player_ids) == recount(client, match_ids)


def live_play_test(start_stack: StartStack, figures: dict, kills: int) -> None:
    stack = start_stack(workers=2)
    with Load(stack.http, tables=4, start_scores=[7, 7]) as load:
        kill_workers_under_load(stack, load, kills, random.Random(kills))
    assert_exact(stack, load.ledger.matches, load.ledger.players)
    figures.update(worker_kills_during_play=kills, matches_played=len(load.ledger.matches),
                   acknowledged_events=load.ledger.events, events_lost=0)


def test_workers_killed_during_live_play_leave_read_models_equal_to_a_clean_rebuild(
    start_stack: StartStack, figures: dict,
) -> None:
    live_play_test(start_stack, figures, kills=3)


def store_history(stack: Stack, matches: int) -> None:
    """Finished matches written straight into the streams (as if played long ago)."""
    store = RedisEventStore(stack.client())
    for n in range(matches):
        rng = random.Random(n)
        players = tuple(rng.sample(PLAYERS, 2))
        append_in_batches(store, f"hist{n}", random_match(n % 20, f"hist{n}", players), rng)


def start_rebuild(stack: Stack) -> subprocess.Popen:
    """`truc rebuild` in the background; an orphaned job is re-queued by the next sweep (every 2 s)."""
    return subprocess.Popen(
        [sys.executable, "-c", "from services.cli import main; main()", "rebuild",
         "--batch-size", "2", "--grace-seconds", "0.2", "--stall-seconds", "30"],
        cwd=ROOT, env=stack.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )


def wait_for_a_running_rebuild_job(stack: Stack, rebuild: subprocess.Popen) -> None:
    """Block until a worker is running one of the rebuild's jobs (killing it now orphans the job)."""
    deadline = time.monotonic() + 20
    while not running_rebuild_jobs(stack):
        ended = rebuild.poll() is not None
        assert not ended, f"the rebuild ended before a kill caught one of its jobs:\n{rebuild.communicate()[0]}"
        assert time.monotonic() < deadline, "no rebuild job started"
        time.sleep(0.002)


def running_rebuild_jobs(stack: Stack) -> list[str]:
    return rebuild_queue(stack.client(), "projector").started_job_registry.get_job_ids(cleanup=False)


def rebuild_with_kills(stack: Stack, rng: random.Random) -> tuple[int, int]:
    """Kill every worker while one runs a rebuild job, start new ones: the rebuild must still complete.

    A job can end between being seen running and the kill, so this tries again until a kill
    leaves a job orphaned. Returns (jobs orphaned, jobs the rebuild itself queued again because
    a worker took them and was killed before starting them).
    """
    rebuild = start_rebuild(stack)
    orphaned = 0
    while not orphaned:
        wait_for_a_running_rebuild_job(stack, rebuild)
        time.sleep(rng.uniform(0, 0.005))
        for worker in stack.live_workers():
            stack.kill_worker(worker)
        orphaned = len(running_rebuild_jobs(stack))  # every worker is dead: whatever is running is orphaned
        for _ in range(2):
            stack.start_worker()
    output = rebuild.communicate(timeout=60)[0]
    assert rebuild.returncode == 0, output
    return orphaned, _queued_again(output)


def rescued_jobs(stack: Stack) -> int:
    """How many orphaned jobs the workers queued again, from their logs."""
    return _queued_again("".join(stack.log(f"worker-{n}") for n in range(len(stack.workers))))


def _queued_again(output: str) -> int:
    """How many jobs the "Queued again N job(s)" lines of ``output`` add up to."""
    return sum(int(count) for count in re.findall(r"Queued again (\d+) job", output))


def rebuild_test(start_stack: StartStack, figures: dict, history: int, rounds: int) -> None:
    stack = start_stack(workers=2)
    store_history(stack, history)
    with Load(stack.http, tables=1, start_scores=[7, 7]) as load:
        outcomes = [rebuild_with_kills(stack, random.Random(attempt)) for attempt in range(rounds)]
    orphaned, requeued_by_rebuild = (sum(counts) for counts in zip(*outcomes))
    match_ids = set(RedisEventStore(stack.client()).match_ids())
    players = {player_id for player_id, _ in PLAYERS} | load.ledger.players
    generation = read_pointer(stack.client()).generation
    assert generation == rounds  # every rebuild switched reads once
    assert_exact(stack, match_ids, players)
    rescued = rescued_jobs(stack)
    assert rescued >= orphaned  # the killed rebuild jobs were run again, not waited for
    figures.update(rebuilds=rounds, worker_kills_during_rebuilds=len(stack.workers) - 2,
                   orphaned_jobs=orphaned, orphaned_jobs_rescued=rescued,
                   dequeued_jobs_requeued=requeued_by_rebuild,
                   matches_rebuilt=len(match_ids), events_lost=0)


def test_a_rebuild_whose_workers_are_killed_mid_job_still_completes_equal_to_a_clean_fold(
    start_stack: StartStack, figures: dict,
) -> None:
    rebuild_test(start_stack, figures, history=30, rounds=1)


@pytest.mark.soak
@pytest.mark.timeout(900)
def test_workers_killed_again_and_again_during_play_and_rebuilds(start_stack: StartStack, figures: dict) -> None:
    live_play_test(start_stack, figures, kills=25)
    rebuild_test(start_stack, figures, history=400, rounds=4)
