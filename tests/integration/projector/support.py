"""Helpers of the projector's integration tests."""

from __future__ import annotations

import random
import subprocess
from collections.abc import Callable
from pathlib import Path

from tests.projector_support import Players

REPO = Path(__file__).resolve().parents[3]
QUEUE_NAME = "projector"
NO_PERIODIC_SWEEP = 300  # seconds: only the sweep at start happens during a test

PLAYERS = [("p1", "alice"), ("p2", "bob"), ("p3", "carol"), ("p4", "dave")]

StartWorker = Callable[..., subprocess.Popen]  # the ``start_worker`` fixture


def players_of(n: int) -> Players:
    """Two of PLAYERS for match number ``n`` (the same two every time)."""
    first, second = random.Random(n).sample(PLAYERS, 2)
    return first, second
