"""What each request tells the operators: its ``X-Request-ID``, its metrics, its log lines.

Every request gets an id (the client's ``X-Request-ID`` if safe, else a new one), echoed on
the answer and bound to every line logged meanwhile, with the match and player it is about.
A request is counted by its URL rule and status; a command (register, create, join, each
action type) also by its outcome (``recorded`` or the refusal's code), and timed. It logs
one line at INFO. ``GET /metrics`` (outside the OpenAPI document, never rate limited)
sums every gunicorn process's metrics and adds the figures read from Redis.
"""
from __future__ import annotations

import logging
import time

from flask import Flask, Response, g, request

from shared.observability import exposition, log_context, metrics
from shared.rules import ACTIONS

from .wiring import Services

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_COMMANDS = {"commands.register_player": "register", "commands.create_match": "create",
             "commands.join_match": "join"}

log = logging.getLogger("services.api.requests")


def install(app: Flask, ctx: Services) -> None:
    """Request ids and log context always; metrics and ``/metrics`` unless ``METRICS=off``."""
    app.before_request(_begin)
    app.after_request(_end)
    app.teardown_request(lambda error: log_context.clear())
    if metrics.enabled():
        exposed = exposition.registry(exposition.Figures(lambda: _figures(ctx)))
        app.add_url_rule("/metrics", "metrics", lambda: Response(exposition.scrape(exposed), 200,
                                                                    content_type=CONTENT_TYPE))


def _begin() -> None:
    g.started = time.perf_counter()
    g.request_id = log_context.request_id(request.headers.get(log_context.REQUEST_ID_HEADER))
    view_args = request.view_args or {}
    log_context.clear()
    log_context.bind(request_id=g.request_id, match_id=view_args.get("match_id"), player_id=view_args.get("player_id"))


def _end(response: Response) -> Response:
    response.headers[log_context.REQUEST_ID_HEADER] = g.get("request_id") or log_context.request_id(None)
    rule = request.url_rule.rule if request.url_rule is not None else "unmatched"
    metrics.record_request(rule, request.method, response.status_code)
    command = _command()
    if command is not None:
        outcome = "recorded" if response.status_code < 400 else metrics.outcome_of(_code(response))
        seconds = time.perf_counter() - g.get("started", time.perf_counter())
        metrics.record_command(command, outcome, seconds)
        # A refusal at INFO; a recorded command, the bulk, at DEBUG (a line per move cost ~5% of the command path).
        log.log(logging.DEBUG if outcome == "recorded" else logging.INFO, "%s %s", command, outcome,
                extra={"status": response.status_code, "ms": round(seconds * 1000, 2)})
    return response


def _command() -> str | None:
    """The command the request was, as a bounded label; None for anything else."""
    endpoint = request.endpoint
    if endpoint == "commands.act":
        kind = g.get("action_type")  # as the view loaded it (the body is not parsed twice)
        if kind is None:  # the view never ran: the body as sent (any at all, even one refused as too large)
            try:
                body = request.get_json(silent=True)
            except Exception:  # noqa: BLE001
                body = None
            kind = body.get("type") if isinstance(body, dict) else None
        return f"act:{kind}" if isinstance(kind, str) and kind in ACTIONS else "act:invalid"
    return _COMMANDS.get(endpoint or "")


def _code(response: Response) -> str | None:
    body = response.get_json(silent=True) if response.is_json else None
    return body.get("error") if isinstance(body, dict) else None  # the stable code (API.md "Errors")


def _figures(ctx: Services) -> list[exposition.Reading]:
    """The gauges kept in Redis, read at scrape time (bounded: the marked matches, the parked ones)."""
    depths = [("truc_queue_jobs", "Jobs waiting in a projector queue.", {"queue": name}, waiting)
              for name, waiting in ctx.queue_depths().items()]
    return depths + [
        ("truc_projection_lag_events", "Events appended but not yet projected.", {}, ctx.read_models.lag(ctx.store)),
        ("truc_unprojected_matches", "Matches with events not yet projected.", {}, ctx.store.unprojected_count()),
        ("truc_parked_matches", "Matches the projector parked on an event it cannot fold.", {},
         len(ctx.read_models.parked.current(ctx.read_models))),
        *(ctx.archive.readings() if ctx.archive is not None else []),
        ("truc_seeks_open", "Seeks waiting for an opponent.", {}, ctx.matchmaker.pool.open_count()),
        ("truc_ratings_lag_results", "Rated results recorded but not yet folded into the ratings.", {},
         ctx.read_models.ratings().waiting()),
    ]
