"""The command side's application layer: the use cases create, join and act, and the
clock's ``time_out`` and ``expire`` (:mod:`.timeouts`) that a timer process calls.

Each use case loads the match through the one fold (``loading``), asks the rules engine
to ``decide``, and records the events at the version it decided on (``recording``),
deciding again after a concurrent append. Idempotent retries are answered in
``idempotency``. A use case parses nothing and renders nothing, and its errors
(``application_errors``) say what went wrong in the game's words: the API maps them to HTTP.
"""

from .act import act
from .create import create
from .join import join
from .loading import latest
from .matches import Matches
from .recording import Recorded
from .timeouts import expire, time_out

__all__ = ["Matches", "Recorded", "act", "create", "expire", "join", "latest", "time_out"]
