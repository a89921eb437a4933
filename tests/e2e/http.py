"""A tiny HTTP client for the end-to-end tests (standard library, keep-alive per thread)."""
from __future__ import annotations

import http.client
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import orjson


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: Any
    raw: bytes


class Http:
    def __init__(self, base_url: str, timeout: float = 40.0, source: str | None = None) -> None:
        parts = urlsplit(base_url)
        self.host, self.port, self.timeout = parts.hostname, parts.port, timeout
        self.source = None if source is None else (source, 0)  # call from this local address (e.g. 127.0.0.2)
        self._local = threading.local()

    def _connection(self) -> http.client.HTTPConnection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout,
                                                                 source_address=self.source)
        return conn

    def request(
        self, method: str, path: str, body: Any = None, token: str | None = None,
        headers: dict[str, str] | None = None, raw: bytes | None = None,
    ) -> Reply:
        sent = dict(headers or {})
        if token:
            sent["Authorization"] = f"Bearer {token}"
        payload = raw if raw is not None else (None if body is None else orjson.dumps(body))
        if payload is not None:
            sent.setdefault("Content-Type", "application/json")
        for attempt in (1, 2):  # a kept-alive connection the server closed: reconnect once
            conn = self._connection()
            try:
                conn.request(method, path, body=payload, headers=sent)
                response = conn.getresponse()
                data = response.read()
                break
            except (http.client.HTTPException, ConnectionError):
                conn.close()
                self._local.conn = None
                if attempt == 2:
                    raise
        content_type = response.getheader("Content-Type", "")
        parsed = orjson.loads(data) if data and "json" in content_type else None
        return Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, parsed, data)

    def get(self, path: str, **kw: Any) -> Reply:
        return self.request("GET", path, **kw)

    def post(self, path: str, body: Any = None, **kw: Any) -> Reply:
        return self.request("POST", path, body, **kw)
