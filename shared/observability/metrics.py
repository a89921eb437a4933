"""The service's metrics, named once (Prometheus conventions: ``truc_`` prefix, base units,
``_total`` counters). Every label takes a bounded set of values: a route is the URL rule
(``/matches/<id:match_id>``), never the path; a command is one of the API's own; an outcome
is ``recorded`` or a refusal's stable code; nothing carries a match or player id.

Under gunicorn each process writes its values to ``PROMETHEUS_MULTIPROC_DIR`` (set before
``prometheus_client`` is imported) and ``GET /metrics`` sums them. ``METRICS=off``
(:func:`configure`) makes every ``record_*`` a no-op: the bench's baseline.
"""
from __future__ import annotations

import re
from typing import Any

from prometheus_client import Counter, Gauge, Histogram

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_CODE = re.compile(r"[A-Z][A-Z_]{0,39}")

REQUESTS = Counter("truc_http_requests", "HTTP requests answered, by URL rule, method and status.",
                   ["route", "method", "status"])
COMMANDS = Counter("truc_commands", "Commands handled, by command and outcome (recorded, or the refusal's code).",
                   ["command", "outcome"])
COMMAND_SECONDS = Histogram("truc_command_duration_seconds", "Time to answer a command, by command.",
                            ["command"], buckets=LATENCY_BUCKETS)
APPENDS = Counter("truc_appends", "Appends to a match's event stream (one per recorded command).")
APPENDED_EVENTS = Counter("truc_appended_events", "Events appended to the match streams.")
OPEN_STREAMS = Gauge("truc_open_streams", "Live streams (match and player) open now.",
                     multiprocess_mode="livesum")
TIMEOUTS = Counter("truc_timeouts_fired", "Timeouts (turn) and expiries (lobby) the timer recorded.", ["kind"])
LIMITS_HIT = Counter("truc_limits_hit", "Requests refused by an abuse limit, by limit name.", ["limit"])
CATCH_UP_SECONDS = Histogram("truc_catch_up_duration_seconds", "Time a projector job took to catch a match up.",
                             buckets=LATENCY_BUCKETS)
CATCH_UPS = Counter("truc_catch_ups", "Projector catch-up jobs run, by outcome (ok, failed).", ["outcome"])
SEEKS = Counter("truc_seeks", "Seeks opened, by outcome (opened).", ["outcome"])
PAIRINGS = Counter("truc_pairings", "Pairs of seeks made into a match, by rated-ness.", ["rated"])
PAIRING_WAIT_SECONDS = Histogram("truc_pairing_wait_seconds", "Time a seek waited until it was paired.",
                                 buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0))
REMATCHES = Counter("truc_rematches", "Rematch requests, by outcome (offered, made).", ["outcome"])

_enabled = True
_children: dict[tuple[Any, tuple[str, ...]], Any] = {}  # bounded: every label takes a bounded set of values


def _labelled(metric: Any, *values: str) -> Any:
    """``metric.labels(*values)``, kept: prometheus_client's lookup (a lock, its key built from the
    values) costs more than the increment on the path of every command."""
    child = _children.get((metric, values))
    if child is None:
        child = _children[(metric, values)] = metric.labels(*values)
    return child


def configure(enabled: bool) -> None:
    """``METRICS=off``: record nothing (``GET /metrics`` answers 404 and no port is opened)."""
    global _enabled
    _enabled = enabled


def enabled() -> bool:
    return _enabled


def outcome_of(code: str | None) -> str:
    """A refusal's code as a label value: only the server's own upper-case codes, else ``error``."""
    return code if code is not None and _CODE.fullmatch(code) else "error"


def record_request(route: str, method: str, status: int) -> None:
    if _enabled:
        _labelled(REQUESTS, route, method if method in METHODS else "other", str(status)).inc()


def record_command(command: str, outcome: str, seconds: float | None = None) -> None:
    if _enabled:
        _labelled(COMMANDS, command, outcome).inc()
        if seconds is not None:
            _labelled(COMMAND_SECONDS, command).observe(seconds)


def record_append(events: int) -> None:
    if _enabled:
        APPENDS.inc()
        APPENDED_EVENTS.inc(events)


def record_stream(opened: bool) -> None:
    if _enabled:
        OPEN_STREAMS.inc() if opened else OPEN_STREAMS.dec()


def record_timeout(kind: str) -> None:
    if _enabled:
        TIMEOUTS.labels(kind).inc()


def record_limit(limit: str) -> None:
    if _enabled:
        LIMITS_HIT.labels(limit).inc()


def record_catch_up(seconds: float, ok: bool) -> None:
    if _enabled:
        CATCH_UP_SECONDS.observe(seconds)
        CATCH_UPS.labels("ok" if ok else "failed").inc()


def record_seek(outcome: str) -> None:
    if _enabled:
        SEEKS.labels(outcome).inc()


def record_pairing(rated: bool, waits_seconds: list[float]) -> None:
    if _enabled:
        PAIRINGS.labels("true" if rated else "false").inc()
        for wait in waits_seconds:
            PAIRING_WAIT_SECONDS.observe(max(wait, 0.0))


def record_rematch(outcome: str) -> None:
    if _enabled:
        REMATCHES.labels(outcome).inc()
