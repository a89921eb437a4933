"""What the project's RQ workers share: a warm stop that does not wait on RQ's pub/sub thread.

RQ listens for commands on a pub/sub thread that polls every 60 s. When the unsubscribe's
reply reaches that thread before the worker asks it to stop, it goes back to waiting, and
the stop waits with it: up to a minute for a worker that was idle (supervisord and compose
kill it first). Polling every second bounds that wait at a second.
"""
from __future__ import annotations

from rq import SimpleWorker

PUBSUB_POLL_SECONDS = 1.0


class PromptlyStoppingWorker(SimpleWorker):
    """A ``SimpleWorker`` whose command thread polls every ``PUBSUB_POLL_SECONDS``."""

    def subscribe(self) -> None:
        """Subscribe to this worker's command channel (as RQ does, polling more often)."""
        self.log.info("Worker %s: subscribing to channel %s", self.name, self.pubsub_channel_name)
        self.pubsub = self.connection.pubsub()
        self.pubsub.subscribe(**{self.pubsub_channel_name: self.handle_payload})
        self.pubsub_thread = self.pubsub.run_in_thread(
            sleep_time=PUBSUB_POLL_SECONDS, daemon=True, exception_handler=self._pubsub_exception_handler,
        )
