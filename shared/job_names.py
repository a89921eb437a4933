"""The projector's jobs as the queues hold them: the contract between who asks and who runs.

The side that asks (the API's catch-up lanes, an operator's rebuild) queues a job by one of
these names; the projector's workers look the name up in their own table
(``services.projector.jobs.JOBS``) and run that function. The names are plain words, not
import paths, so asking for a job never names a module of the service that runs it, and
the projector may move its code without breaking a job already queued (a test resolves
every name). RQ itself is imported only by the services, never here.

Workers listen to the catch-up queue first and the rebuild queue second (RQ serves its
queues in order), so live catch-ups never wait behind a rebuild's backlog.
"""

from __future__ import annotations

CATCH_UP = "catch_up"  # (match_id): fold one match's new events into its read models
DRAIN = "drain"  # (lane): catch up the matches filed in a catch-up lane
REBUILD_BATCH = "rebuild_batch"  # (match_ids, generation): fold matches from 0 into a generation
NAMES = (CATCH_UP, DRAIN, REBUILD_BATCH)
ARCHIVE = "archive"  # (match_id): move one finished match from Redis to the archive (the archiver's)
ARCHIVER_NAMES = (ARCHIVE,)

JOB_TIMEOUT_SECONDS = 60  # a catch-up folds one short match: minutes would mean it hangs
REBUILD_JOB_TIMEOUT_SECONDS = 600  # a batch of matches, folded from their first event
REBUILD_RESULT_TTL_SECONDS = 3600  # the rebuild polls its jobs' status and reads their result
FAILURE_TTL_SECONDS = 7 * 24 * 3600  # keep failed jobs a week, to inspect them
REBUILD_SUFFIX = "-rebuild"  # the rebuild queue is named after the catch-up queue
ARCHIVE_SUFFIX = "-archive"  # and so is the archivers' queue
ARCHIVE_JOB_TIMEOUT_SECONDS = 300  # one match read, written, read back: minutes would mean the archive hangs


def archive_queue_name(catch_up_queue_name: str) -> str:
    """The name of the archivers' queue beside the catch-up queue ``catch_up_queue_name``."""
    return f"{catch_up_queue_name}{ARCHIVE_SUFFIX}"


def rebuild_queue_name(catch_up_queue_name: str) -> str:
    """The name of the rebuild queue beside the catch-up queue ``catch_up_queue_name``."""
    return f"{catch_up_queue_name}{REBUILD_SUFFIX}"
