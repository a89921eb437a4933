"""What an operator's tool runs of the projector in its own process: the projector's public face.

The ``truc`` CLI imports this module and no other of the projector (the architecture test
says so), as the bots and the CLI import only ``services.client`` of the API: an inline
rebuild, an import's fold and an unpark must run the projector's own catch-up, in the
CLI's process, with no worker.
"""

from __future__ import annotations

from services.projector.catchup.catching_up import unpark
from services.projector.catchup.projector_context import ProjectorContext
from services.projector.queues import rebuild_queue
from services.projector.rebuild.full_rebuild import Rebuild, RebuildError, RebuildOptions, RebuildReport
from services.projector.rebuild.lock_and_switch import RebuildLockError
from services.projector.rebuild.match_rebuilds import rebuild_match

__all__ = [
    "ProjectorContext", "Rebuild", "RebuildError", "RebuildLockError", "RebuildOptions", "RebuildReport",
    "rebuild_match", "rebuild_queue", "unpark",
]
