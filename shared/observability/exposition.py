"""Serving the metrics: gunicorn's multiprocess directory, a worker's own port, and the
figures read from Redis when scraped.

The API's gunicorn processes share ``PROMETHEUS_MULTIPROC_DIR`` (``DATA_DIR/metrics``
unless set): :func:`prepare_multiprocess_dir` creates it private and empties it at the
API's start, gunicorn's ``child_exit`` calls :func:`process_dead`, and :func:`scrape` sums
every process's files. A projector worker or a timer has no gunicorn: :func:`serve` opens
``METRICS_PORT`` on HOST (or the next free port: several workers share a host under
``make run``). Gauges that live in Redis (lag, queues, parked matches) come from
:class:`Figures`, read at most every ``max_age`` seconds whatever the scrape rate.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from prometheus_client import REGISTRY, CollectorRegistry, generate_latest, start_http_server
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead

from shared.private_files import private_dir

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
PORT_TRIES = 32  # METRICS_PORT, then the next ports, until one is free

log = logging.getLogger(__name__)
Reading = tuple[str, str, dict[str, str], float]  # name, help, labels, value


def prepare_multiprocess_dir(path: Path) -> Path:
    """Create ``path`` private (0700), empty it of an earlier run's files, and export it for children."""
    private_dir(path)
    for stale in path.glob("*.db"):
        stale.unlink(missing_ok=True)
    os.environ[MULTIPROC_ENV] = str(path)
    return path


def process_dead(pid: int) -> None:
    """gunicorn's ``child_exit``: the live gauges of a gone worker stop counting."""
    if os.environ.get(MULTIPROC_ENV):
        mark_process_dead(pid)


class Figures:
    """A collector of gauges measured by ``read`` (in Redis), cached ``max_age`` seconds.

    ``truc_figures_up`` says whether the last reading succeeded (0: Redis did not answer).
    """

    def __init__(self, read: Callable[[], Iterable[Reading]], max_age: float = 2.0) -> None:
        self._read, self._max_age = read, max_age
        self._lock = threading.Lock()
        self._taken_at = float("-inf")
        self._readings: list[Reading] = []
        self._up = 0.0

    def collect(self) -> Iterator[Metric]:
        with self._lock:
            if time.monotonic() - self._taken_at >= self._max_age:
                self._refresh()
            readings, up = list(self._readings), self._up
        families: dict[str, GaugeMetricFamily] = {}
        for name, help_text, labels, value in readings:
            if name not in families:
                families[name] = GaugeMetricFamily(name, help_text, labels=list(labels))
            families[name].add_metric(list(labels.values()), value)
        yield from families.values()
        yield GaugeMetricFamily("truc_figures_up", "1 if the Redis figures were read at the last scrape.", value=up)

    def _refresh(self) -> None:
        try:
            self._readings, self._up = list(self._read()), 1.0
        except Exception as error:  # noqa: BLE001 - a scrape reports, never fails
            log.warning("metrics: could not read the Redis figures: %s", type(error).__name__)
            self._up = 0.0
        self._taken_at = time.monotonic()


class _Joined:
    def __init__(self, *collectors: object) -> None:
        self._collectors = collectors

    def collect(self) -> Iterator[Metric]:
        for collector in self._collectors:
            yield from collector.collect()  # type: ignore[attr-defined]


def registry(*extra: object) -> object:
    """What to expose: every process's files under gunicorn, else this process's metrics; plus ``extra``."""
    if os.environ.get(MULTIPROC_ENV):
        summed = CollectorRegistry()
        MultiProcessCollector(summed)
        return _Joined(summed, *extra)
    return _Joined(REGISTRY, *extra)


def scrape(exposed: object) -> bytes:
    """The text exposition of ``exposed`` (from :func:`registry`)."""
    return generate_latest(exposed)  # type: ignore[arg-type]


def serve(host: str, port: int, *extra: object) -> int | None:
    """Expose this process's metrics over HTTP on ``port`` or the next free one; the port (None: off)."""
    if port <= 0:
        return None
    exposed = registry(*extra)
    for candidate in range(port, port + PORT_TRIES):
        try:
            start_http_server(candidate, addr=host, registry=exposed)  # type: ignore[arg-type]
        except OSError:
            continue
        log.info("metrics on http://%s:%d/metrics", host, candidate, extra={"metrics_port": candidate})
        return candidate
    log.warning("metrics: no free port in %d-%d; not exposed", port, port + PORT_TRIES - 1)
    return None
