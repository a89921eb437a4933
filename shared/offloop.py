"""Long CPU work off gevent's event loop: a fold of thousands of events must not stall every request.

The API runs under gunicorn's gevent worker: one loop serves every connection of the
process, and a fold that keeps the CPU for a quarter of a second keeps ``/health`` and
every other request waiting as long. :func:`off_loop` runs such work on a pool of its own
(``FOLD_THREADS`` threads, not the hub's pool of ten, which also resolves names): the loop
goes on serving between the thread's slices of the GIL (a
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

FOLD_THREADS = 2  # long folds at once per process: more would only slice the one GIL thinner
_pool = None  # the process's pool, made on first use (after gunicorn forked the worker)


def off_loop(work: Callable[..., T], *args: object) -> T:
    """``work(*args)`` on a thread of the process's fold pool when it runs gevent's loop, else here;
    past ``FOLD_THREADS`` at once, the caller's greenlet waits its turn (the loop serves meanwhile)."""
    global _pool
    if not on_gevent():
        return work(*args)
    if _pool is None:
        from gevent.threadpool import ThreadPool  # here, not at the top: only a process gevent patched needs it

        _pool = ThreadPool(FOLD_THREADS)
    return _pool.apply(work, args)


def on_gevent() -> bool:
    """Whether gevent has patched this process's threads (gunicorn's gevent worker does, first)."""
    monkey = sys.modules.get("gevent.monkey")
    return monkey is not None and monkey.is_module_patched("threading")
