"""``GET /health``: Redis reachability, the projector's backlog and parked matches, cheaply.

Load balancers ask often, so nothing here grows with the keyspace: the marked matches
are counted from the index the append and projector scripts keep, the lag is summed over
those matches only, and both figures are kept for ``FIGURES_SECONDS`` per process.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from flask import Response, current_app

from .json_responses import json_response
from .language import say
from .smorest import ApiBlueprint
from .wiring import Services, services

FIGURES_SECONDS = 2.0

blp = ApiBlueprint("health", __name__, description="Whether the service and its projector keep up.")


@dataclass(frozen=True)
class _Figures:
    unprojected_matches: int
    projector_lag: int
    taken_at: float


class _Backlog:
    """The projector's backlog as this process last measured it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._figures: _Figures | None = None

    def figures(self, ctx: Services) -> _Figures:
        """Measured at most every FIGURES_SECONDS."""
        with self._lock:
            figures = self._figures
        if figures is None or time.monotonic() - figures.taken_at >= FIGURES_SECONDS:
            figures = _Figures(ctx.store.unprojected_count(), ctx.read_models.lag(ctx.store), time.monotonic())
            with self._lock:
                self._figures = figures
        return figures


@blp.route("/health", methods=["GET"])
@blp.response(200)
def health() -> Response:
    """Redis reachability, projector lag (events appended but not yet projected) and parked matches.

    `status` is `ok`, or `degraded` while the projector has parked a match (on an event it
    cannot fold, or read models it cannot write; listed in `parked`; every other match is
    still projected), or while the archive cannot be reached (`archive.reachable` false: finished
    matches wait in Redis). 503 when Redis is unreachable. The backlog figures may be up to two
    seconds old. `streams` counts the live streams the answering API process holds open
    (`open`, of at most `max`) and the matches and players they watch.
    """
    ctx = services()
    started = time.perf_counter()
    try:
        ctx.redis.ping()
        figures = current_app.extensions.setdefault("truc-backlog", _Backlog()).figures(ctx)
        parked = ctx.read_models.parked.current(ctx.read_models)
        queue = ctx.queue_health()
        archive = ctx.archive.report() if ctx.archive is not None else None
    except Exception as error:  # noqa: BLE001 - health reports every failure, never raises
        # The error names sockets and hosts: the operator's log gets it, the caller a code. One
        # line, no traceback: a balancer probes every few seconds, and the cause is the same each time.
        current_app.logger.warning("health check failed: %s: %s", type(error).__name__, error)
        body = {"status": "unavailable", "redis": False, "error": "STORE_UNAVAILABLE",
                "message": say("The event store cannot be reached right now.")}
        return json_response(body, 503)
    unreachable = archive is not None and not archive["reachable"]  # archiving waits; play goes on
    body = {
        "status": "degraded" if parked or unreachable else "ok", "redis": True,
        "redis_ms": round((time.perf_counter() - started) * 1000, 2),
        "projector_lag": figures.projector_lag, "unprojected_matches": figures.unprojected_matches,
        "queue": queue, "parked": [record.public() for record in parked],
        "streams": {"open": ctx.streams.open, "max": ctx.streams.limit,
                    "matches": ctx.feeds.matches.watched, "players": ctx.feeds.players.watched},
        **({"archive": archive} if archive is not None else {}),
    }
    return json_response(body)
