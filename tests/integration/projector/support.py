"""Helpers of the projector's integration tests."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
QUEUE_NAME = "projector"
NO_PERIODIC_SWEEP = 300  # seconds: only the sweep at start happens during a test

StartWorker = Callable[..., subprocess.Popen]  # the ``start_worker`` fixture


def wait_until(condition: Callable[[], bool], timeout: float = 10.0, what: str = "condition") -> None:
    """Poll ``condition`` every 10 ms until it holds; fail the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.01)
