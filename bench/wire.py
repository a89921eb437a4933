"""A lean keep-alive HTTP client for load generation: orjson bodies, every call timed.

``services.client.TrucClient`` is the client for people and bots; a load generator wants
less work per call on the client side (the clients share the machine with the server),
so this one is raw ``http.client`` with one kept-alive connection per process.
"""
from __future__ import annotations

import http.client
import time
from typing import Any

import orjson


class HttpError(RuntimeError):
    """An answer other than the one a benchmark step expects."""

    def __init__(self, status: int, body: Any, what: str) -> None:
        super().__init__(f"{what}: HTTP {status} {body}")
        self.status, self.body = status, body


class Http:
    """One kept-alive connection to the API on 127.0.0.1."""

    def __init__(self, port: int, timeout: float = 30.0) -> None:
        self._port, self._timeout = port, timeout
        self._conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)

    def call(
        self, method: str, path: str, body: Any = None, token: str | None = None, if_match: int | None = None,
    ) -> tuple[int, Any, float]:
        """(status, parsed JSON body, seconds from sending to the last byte read)."""
        headers = {"Accept": "application/json"}
        payload = None
        if body is not None or method == "POST":
            payload = orjson.dumps(body if body is not None else {})
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if if_match is not None:
            headers["If-Match"] = f'"{if_match}"'
        for attempt in (1, 2):  # a kept-alive connection the server closed: reconnect once
            started = time.perf_counter()
            try:
                self._conn.request(method, path, body=payload, headers=headers)
                reply = self._conn.getresponse()
                raw = reply.read()
                break
            except (http.client.HTTPException, ConnectionError):
                self._conn.close()
                self._conn = http.client.HTTPConnection("127.0.0.1", self._port, timeout=self._timeout)
                if attempt == 2:
                    raise
        elapsed = time.perf_counter() - started
        return reply.status, (orjson.loads(raw) if raw else None), elapsed

    def expect(self, status: int, method: str, path: str, **kwargs: Any) -> tuple[Any, float]:
        """``call`` that raises :class:`HttpError` unless the answer has ``status``."""
        got, body, elapsed = self.call(method, path, **kwargs)
        if got != status:
            raise HttpError(got, body, f"{method} {path}")
        return body, elapsed

    def reconnect(self) -> None:
        """Drop the kept-alive connection; the next call opens a new one."""
        self._conn.close()

    def close(self) -> None:
        self._conn.close()
