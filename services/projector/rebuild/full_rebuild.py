"""Rebuild every read model from the event streams into a new generation, with no downtime.

Reads keep using the current generation until the new one is complete, then move over in
one atomic step (see :mod:`shared.readmodels.generations` and :mod:`.lock_and_switch`):

1. take the rebuild lock; N = current + 1; delete any leftovers of generation N; set
   ``building = N`` - from then on live catch-ups write to N as well;
2. fold every match from its first event into N: one ``rebuild_batch`` job per batch of
   matches on the workers' rebuild queue (served after live catch-ups), or in this
   process with no worker (``inline``);
3. final pass: any match whose stream is ahead of N (an append whose catch-up ran before
   ``building`` was set, a match created meanwhile) is caught up into N here;
4. switch reads to N, ending the rebuild, in one MULTI;
5. after a grace period (API processes may be mid-request on the old generation), drop
   the old generation's keys.

Any failure before the switch (a failed job, no progress, Ctrl-C) abandons the rebuild:
reads never left the old generation; the jobs still queued are cancelled and the partial
generation N is dropped.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from rq import Queue
from rq.job import Job, JobStatus

from services.projector.catchup.projector_context import ProjectorContext
from services.projector.queues import enqueue_rebuild, lost_jobs, outdated_workers, registered_workers, requeue
from services.projector.rebuild.lock_and_switch import abandon, drop_generation, lock_rebuild, start_building, switch_to
from services.projector.rebuild.match_rebuilds import rebuild_batch, rebuild_match
from shared.archive.archived_reads import is_archived
from shared.eventstore.port import EventStore
from shared.readmodels.served import ReadModels

_FAILED = {JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED}
_FINAL_PASS_PAGE = 500

Progress = Callable[[int, int], None]  # (matches folded, matches in all)
Say = Callable[[str], None]


class RebuildError(RuntimeError):
    """The rebuild was abandoned; reads still use the old generation."""


@dataclass(frozen=True)
class RebuildOptions:
    """How to rebuild (the command-line options)."""

    batch_size: int = 25  # matches per job: fewer jobs, coarser progress
    inline: bool = False  # fold in this process, not on the workers
    keep_old: bool = False  # keep the old generation's keys
    grace_seconds: float = 2.0  # wait before dropping the old generation
    force: bool = False  # take over the lock of a rebuild that crashed
    poll_seconds: float = 0.1  # how often the jobs' status is polled
    stall_seconds: float = 120.0  # give up when no job finishes for this long
    lost_check_seconds: float = 2.0  # how often to look for jobs a dying worker dequeued


@dataclass
class RebuildReport:
    """What a finished rebuild did."""

    previous: int
    generation: int
    matches: int = 0
    events: int = 0
    jobs: int = 0
    workers: int = 0  # 0: folded inline
    final_pass: int = 0  # matches the final pass had to catch up
    dropped_keys: int | None = None  # None: the old generation was kept
    build_seconds: float = 0.0  # steps 2 and 3

    @property
    def events_per_second(self) -> float:
        """Events folded per second of building."""
        return self.events / self.build_seconds if self.build_seconds else 0.0


def owner_id() -> str:
    """Who holds the rebuild lock: this host and process, and since when."""
    return f"{socket.gethostname()}:{os.getpid()} {datetime.now(UTC).isoformat(timespec='seconds')}"


def batches(match_ids: list[str], size: int) -> list[list[str]]:
    """``match_ids`` cut into consecutive batches of at most ``size``."""
    size = max(1, size)
    return [match_ids[start:start + size] for start in range(0, len(match_ids), size)]


class Rebuild:
    """One rebuild of every read model; ``run()`` does it (see the module docstring)."""

    def __init__(
        self, store: EventStore, readmodels: ReadModels, queue: Queue | None,
        options: RebuildOptions | None = None, progress: Progress | None = None, say: Say | None = None,
    ) -> None:
        self.store, self.readmodels, self.queue = store, readmodels, queue
        self.options = options or RebuildOptions()
        self.progress: Progress = progress or (lambda done, total: None)
        self.say: Say = say or (lambda message: None)
        self.owner = owner_id()
        self._jobs: list[Job] = []

    def run(self) -> RebuildReport:
        """Rebuild, switch and drop the old generation; raises :class:`RebuildError` if abandoned."""
        before = lock_rebuild(self.readmodels.client, self.owner, force=self.options.force)
        report = RebuildReport(previous=before.generation, generation=before.generation + 1)
        try:
            self._build(report)
            switch_to(self.readmodels.client, report.generation, self.owner)
        except BaseException as error:  # Ctrl-C too: never leave a rebuild half-started
            self._abandon(report.generation)
            if isinstance(error, Exception) and not isinstance(error, RebuildError):
                raise RebuildError(f"rebuild abandoned: {error}") from error
            raise
        self.say(f"Reads now use generation {report.generation}.")
        self._drop_old(report)
        return report

    def _build(self, report: RebuildReport) -> None:
        client, generation = self.readmodels.client, report.generation
        outdated = outdated_workers(self.queue) if self.queue is not None else []
        if outdated:
            raise RebuildError(f"restart these projector workers first, they predate read-model "
                               f"generations: {', '.join(outdated)}")
        leftovers = drop_generation(client, generation)
        if leftovers:
            self.say(f"Deleted {leftovers} leftover key(s) of generation {generation}.")
        start_building(client, generation, self.owner)
        started = time.monotonic()
        match_ids = list(self.store.match_ids())
        report.matches = len(match_ids)
        self.progress(0, len(match_ids))
        self._fold_all(report, match_ids)
        report.events, report.final_pass = self._final_pass(generation, match_ids)
        report.build_seconds = time.monotonic() - started

    def _fold_all(self, report: RebuildReport, match_ids: list[str]) -> None:
        work = batches(match_ids, self.options.batch_size)
        report.jobs = len(work)
        workers = 0 if self.options.inline or self.queue is None else registered_workers(self.queue)
        report.workers = workers
        if workers:
            self.say(f"Generation {report.generation}: {len(match_ids)} match(es) in {len(work)} job(s) "
                     f"on {workers} worker(s).")
            self._fan_out(work, report.generation)
        else:
            why = "as asked" if self.options.inline else "no projector worker serves the rebuild queue"
            self.say(f"Generation {report.generation}: {len(match_ids)} match(es), folded in this process ({why}).")
            self._fold_inline(work, report.generation)

    def _fold_inline(self, work: list[list[str]], generation: int) -> None:
        context = ProjectorContext(self.store, self.readmodels)
        total, done = sum(map(len, work)), 0
        for batch in work:
            rebuild_batch(batch, generation, context)
            done += len(batch)
            self.progress(done, total)

    def _fan_out(self, work: list[list[str]], generation: int) -> None:
        assert self.queue is not None
        self._jobs = [enqueue_rebuild(self.queue, batch, generation) for batch in work]
        sizes = {job.id: len(batch) for job, batch in zip(self._jobs, work)}
        pending, total, done = set(sizes), sum(sizes.values()), 0
        last_progress = last_lost_check = time.monotonic()
        suspects: set[str] = set()
        while pending:
            time.sleep(self.options.poll_seconds)
            if time.monotonic() - last_lost_check > self.options.lost_check_seconds:
                suspects = self._requeue_lost(sorted(pending), suspects)
                last_lost_check = time.monotonic()
            finished = self._finished(sorted(pending))
            if finished:
                pending -= finished
                done += sum(sizes[job_id] for job_id in finished)
                last_progress = time.monotonic()
                self.progress(done, total)
            elif time.monotonic() - last_progress > self.options.stall_seconds:
                raise RebuildError(f"no rebuild job finished in {self.options.stall_seconds:.0f} s "
                                   "(are the projector workers running?)")

    def _requeue_lost(self, job_ids: list[str], suspects: set[str]) -> set[str]:
        """Queue again the jobs found lost now and at the previous check; the new suspects."""
        lost = lost_jobs(self.queue, job_ids)
        again = lost & suspects
        if again:
            requeue(self.queue, again)
            self.say(f"Queued again {len(again)} job(s) a worker took and died before starting.")
        return lost - again

    def _finished(self, job_ids: list[str]) -> set[str]:
        """The ids among ``job_ids`` that finished; raises on a failed or vanished job."""
        finished = set()
        for job_id, job in zip(job_ids, Job.fetch_many(job_ids, connection=self.queue.connection)):
            status = None if job is None else job.get_status(refresh=False)
            if status is None or status in _FAILED:
                raise RebuildError(f"rebuild job {job_id} {status.value if status else 'vanished'}"
                                   f" (see `rq info` and the failed job registry)")
            if status == JobStatus.FINISHED:
                finished.add(job_id)
        return finished

    def _final_pass(self, generation: int, match_ids: list[str]) -> tuple[int, int]:
        """Catch generation N up with every stream; (events in the rebuilt matches, matches caught up)."""
        context = ProjectorContext(self.store, self.readmodels)
        target = self.readmodels.at(generation)
        rebuilt, events, caught_up = set(match_ids), 0, 0
        everything = list(dict.fromkeys([*match_ids, *self.store.match_ids()]))  # and new matches
        for start in range(0, len(everything), _FINAL_PASS_PAGE):
            page = everything[start:start + _FINAL_PASS_PAGE]
            for match_id, projected in zip(page, target.projected_versions(page)):
                version = self.store.version(match_id)
                events += version if match_id in rebuilt else 0
                if projected < version and not is_archived(self.store, match_id):  # archived: no views
                    rebuild_match(match_id, context, generation=generation)
                    caught_up += 1
        if caught_up:
            self.say(f"Final pass: caught up {caught_up} match(es) that moved during the rebuild.")
        self.readmodels.ratings(generation).settle()  # a folder that crashed meanwhile left results waiting
        return events, caught_up

    def _abandon(self, generation: int) -> None:
        """Stop everything of this rebuild; reads stay on the old generation."""
        for job in self._jobs:
            try:
                if job.get_status() in (JobStatus.QUEUED, JobStatus.DEFERRED, JobStatus.SCHEDULED):
                    job.cancel()
            except Exception:  # noqa: BLE001 - best effort: a late job does nothing anyway
                pass
        client = self.readmodels.client
        try:
            abandon(client, self.owner)  # raises if another rebuild took the lock: its keys stay
            drop_generation(client, generation)
        except Exception as error:  # noqa: BLE001 - the original failure is the one to report
            self.say(f"Could not clean up generation {generation}: {error}")
        self.say(f"Rebuild abandoned: reads still use generation {generation - 1}.")

    def _drop_old(self, report: RebuildReport) -> None:
        if self.options.keep_old:
            self.say(f"Kept generation {report.previous}.")
            return
        time.sleep(self.options.grace_seconds)  # API requests begun on the old generation end
        report.dropped_keys = drop_generation(self.readmodels.client, report.previous)
        self.say(f"Dropped generation {report.previous} ({report.dropped_keys} key(s)).")
