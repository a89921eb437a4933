"""The API's Redis round trips, counted for the benchmark (``BENCH_REFERENCE=1`` only).

Each API process counts every request it sends to Redis (one command, or one pipeline
whole: one round trip either way) in an 8-byte counter file of its own,
``DATA_DIR/round-trips/<pid>``, mapped into memory: counting is a memory write, and the
benchmark sums the files from outside, between any two moments it likes.
"""
from __future__ import annotations

import ctypes
import mmap
import os
from pathlib import Path

DIRECTORY = "round-trips"


class RoundTripCounter:
    """A counter in a memory-mapped file, opened anew in each process (gunicorn forks)."""

    def __init__(self, data_dir: Path) -> None:
        self._directory = data_dir / DIRECTORY
        self._pid: int | None = None
        self._cell: ctypes.c_uint64 | None = None

    def __call__(self) -> None:
        if self._pid != os.getpid():
            self._open()
        assert self._cell is not None
        self._cell.value += 1

    def _open(self) -> None:
        self._directory.mkdir(parents=True, exist_ok=True)
        with open(self._directory / str(os.getpid()), "w+b") as file:
            file.write(bytes(8))
            file.flush()
            self._map = mmap.mmap(file.fileno(), 8)  # the mapping outlives the file object
        self._cell = ctypes.c_uint64.from_buffer(self._map)
        self._pid = os.getpid()


def round_trips(data_dir: Path) -> int:
    """Round trips counted so far by every API process that counted under ``data_dir``."""
    directory, total = data_dir / DIRECTORY, 0
    for path in directory.iterdir() if directory.is_dir() else ():
        raw = path.read_bytes()
        total += int.from_bytes(raw[:8], "little") if len(raw) >= 8 else 0
    return total
