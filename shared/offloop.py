"""Long CPU work off gevent's event loop: a fold of thousands of events must not stall every request.

The API runs under gunicorn's gevent worker: one loop serves every connection of the
process, and a fold that keeps the CPU for a quarter of a second keeps ``/health`` and
every other request waiting as long. :func:`off_loop` runs such work on a thread of
gevent's own pool, so the loop goes on serving between the thread's slices of the GIL (a
fold is pure Python: it still takes its CPU, but in slices of the interpreter's switch
interval instead of all at once). Where gevent has not patched the process (the projector
workers, the command-line tools, the unit tests and Flask's test client) there is no loop
to keep free, and the work runs in the caller's thread.

What runs off the loop must do no I/O and take no lock the loop's greenlets take: under
gevent's patches those belong to the loop's thread. A fold of events already read is both.
"""
from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def off_loop(work: Callable[..., T], *args: object) -> T:
    """``work(*args)`` on a thread of gevent's pool when the process runs gevent's loop, else here."""
    if not on_gevent():
        return work(*args)
    import gevent  # here, not at the top: only a process gevent patched needs it

    return gevent.get_hub().threadpool.apply(work, args)


def on_gevent() -> bool:
    """Whether gevent has patched this process's threads (gunicorn's gevent worker does, first)."""
    monkey = sys.modules.get("gevent.monkey")
    return monkey is not None and monkey.is_module_patched("threading")
