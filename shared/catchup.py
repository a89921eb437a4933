"""The API's side of a catch-up: many appends, one projector job.

An RQ job costs a worker about 4 ms of bookkeeping (two dozen Redis commands) before it
folds anything, more than catching a match up does. So the API does not queue a job per
append: it adds the match to one of a few lanes (a set each; a match's lane is fixed by a
hash of its id) and queues a drain job only when the lane is not armed already. An armed
lane's drain may be waiting for requests, so a request to it wakes it. Lanes let several
workers drain at once. The drain itself, and why it lingers, is the projector's
(``services.projector.lanes``); it reaches this side only through the keys below.

Nothing relies on a lane for safety: every append also marks its match unprojected, and
the workers' sweep catches up whatever a drain that died with its worker left behind. The
armed flag expires (``ARMED_MS``), so a dead drain does not hold its lane for long.
"""

from __future__ import annotations

import zlib

from rq import Queue

from shared import keys
from shared.eventstore.lua import Script
from shared.queues import enqueue_drain, rebuild_queue

ARMED_MS = 5000  # a running drain arms its lane again at every batch, far within this

# One round trip for a request: file the match, and arm the lane unless it is armed; an
# armed lane's drain may be waiting for requests, so wake it (one token is enough).
_REQUEST = Script("""
redis.call('SADD', KEYS[1], ARGV[1])
if redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('LLEN', KEYS[3]) == 0 then redis.call('RPUSH', KEYS[3], '1') end
return 0
""")


class CatchUpRequests:
    """The lanes of one catch-up queue, as the API asks for catch-ups (keys beside the queue's)."""

    def __init__(self, queue: Queue, count: int = 2) -> None:
        self.queue, self.count = queue, max(1, count)
        self._client = queue.connection
        self._rebuild_queue_key = rebuild_queue(self._client, queue.name).key

    def lane_of(self, match_id: str) -> int:
        return zlib.crc32(keys.validate_match_id(match_id).encode()) % self.count

    def request(self, match_id: str) -> bool:
        """Ask for a catch-up of ``match_id``; True if this queued its lane's drain job."""
        lane = self.lane_of(match_id)
        name = self.queue.name
        lane_keys = (keys.lane_pending(name, lane), keys.lane_armed(name, lane), keys.lane_wake(name, lane))
        armed_now = bool(_REQUEST(self._client, lane_keys, (match_id, ARMED_MS)))
        if armed_now:
            try:
                enqueue_drain(self.queue, lane)
            except BaseException:
                self._client.delete(lane_keys[1])  # no job holds the lane: the next request tries again
                raise
        return armed_now
