"""A child process that dies with its parent, however the parent dies (SIGKILL included).

The kernel sends the child SIGTERM when the thread that started it exits (PR_SET_PDEATHSIG,
Linux only; elsewhere nothing is asked). A child started from a process's main thread thus
lives as long as that process, and no longer: no orphan keeps working for nobody.
"""
from __future__ import annotations

import ctypes
import signal

_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """Ask the kernel for SIGTERM in this process when its parent dies."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except OSError:  # no libc.so.6 (not Linux): the child may outlive its parent there
        pass
