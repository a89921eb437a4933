"""Polling, for tests that wait on another process or thread: with a bound, never a bare sleep."""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest


def wait_until(condition: Callable[[], bool], timeout: float = 10.0, what: str = "condition") -> None:
    """Poll ``condition`` every 10 ms until it holds; fail the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.01)


def wait_for(probe: Callable[[], Any], done: Callable[[Any], bool], seconds: float = 3.0) -> Any:
    """``probe()`` until ``done`` holds of it or ``seconds`` pass; its last value (to assert on)."""
    deadline = time.monotonic() + seconds
    while not done(value := probe()) and time.monotonic() < deadline:
        time.sleep(0.02)
    return value
