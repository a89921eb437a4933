"""/docs is locked down like the table; /health never shows a raw Redis error."""
from __future__ import annotations

import base64
import hashlib
import re

import redis

from tests.unit.api.support import fake_app


def _app(client):
    return fake_app(client)


def test_the_docs_page_allows_only_its_own_inline_script_and_no_framing(fake_redis) -> None:
    reply = _app(fake_redis).test_client().get("/docs")
    assert reply.status_code == 200
    policy = reply.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in policy and "'unsafe-inline'" not in policy.split("script-src")[1].split(";")[0]
    scripts = re.findall(rb"<script>(.*?)</script>", reply.data, re.DOTALL)
    assert scripts, "the Swagger UI page has its inline start-up script"
    for script in scripts:
        assert f"'sha256-{base64.b64encode(hashlib.sha256(script).digest()).decode()}'" in policy
    assert reply.headers["X-Frame-Options"] == "DENY"


class _Unreachable:
    """A Redis whose every command fails the way a dead unix socket does."""

    def __getattr__(self, name):
        def fail(*args, **kwargs):
            raise redis.ConnectionError("Error 2 connecting to unix socket: /home/op/secret/var/redis.sock.")
        return fail


def test_health_answers_a_code_and_keeps_the_redis_error_to_the_log(caplog) -> None:
    app = fake_app(_Unreachable())
    reply = app.test_client().get("/health")
    assert reply.status_code == 503
    body = reply.get_json()
    assert body["error"] == "STORE_UNAVAILABLE" and "redis.sock" not in reply.get_data(as_text=True)
    assert "redis.sock" in caplog.text


def test_health_counts_the_backlog_from_the_index_never_by_scanning_keys(fake_redis, monkeypatch) -> None:
    from shared.eventstore import RedisEventStore

    app = _app(fake_redis)
    http = app.test_client()
    token = http.post("/players", json={"name": "alice"}).get_json()["token"]
    http.post("/matches", json={}, headers={"Authorization": f"Bearer {token}"})

    def no_scan(*args, **kwargs):
        raise AssertionError("health scanned the keyspace")

    monkeypatch.setattr(RedisEventStore, "unprojected", no_scan)
    monkeypatch.setattr(type(fake_redis), "scan_iter", no_scan)
    body = http.get("/health").get_json()
    assert (body["unprojected_matches"], body["projector_lag"]) == (1, 1)  # no worker here: the match waits
