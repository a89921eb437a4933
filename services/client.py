"""A small typed client of the Le Truc REST API (standard library only).

Used by the bots, the terminal client and the tests, exactly as any third-party client
would use the API: every call is one HTTP request; errors raise ``ApiError`` with the
API's stable code and its human message.
"""
from __future__ import annotations

import http.client
import json
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

Json = dict[str, Any]


@dataclass
class ApiError(Exception):
    status: int
    code: str
    message: str
    fields: Json = field(default_factory=dict)
    retry_after: float | None = None  # seconds to wait before trying again (Retry-After: 429, 503), if said
    limit: str | None = None  # which abuse limit refused the call (429 ``RATE_LIMITED``)

    def __str__(self) -> str:
        return f"{self.status} {self.code}: {self.message}"


@dataclass(frozen=True)
class Registered:
    id: str
    name: str
    token: str


@dataclass(frozen=True)
class ServerEvent:
    """One server-sent event: its type, its ``id`` (where to resume from) and its JSON data.

    A message with no data only moves the position (``id``) a reconnect resumes from.
    """

    event: str
    id: str | None
    data: Json | None


class TrucClient:
    """One player's (or a spectator's) connection to the API; thread-safe (a connection per thread)."""

    def __init__(self, base_url: str = "http://127.0.0.1:8000", token: str | None = None, timeout: float = 40,
                 accept_language: str | None = None) -> None:
        parts = urlsplit(base_url)
        self._host, self._port = parts.hostname or "127.0.0.1", parts.port or 80
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.accept_language = accept_language  # sent as Accept-Language on every request when set
        self._local = threading.local()

    # -- identity and matches ------------------------------------------------------------
    def register(self, name: str, password: str | None = None) -> Registered:
        """Register a player (with a password: one that can log in from other devices); this client then
        acts as that player."""
        body = self._call("POST", "/players", {"name": name, **({"password": password} if password else {})})
        self.token = body["token"]
        return Registered(body["id"], body["name"], body["token"])

    def log_in(self, name: str, password: str) -> Registered:
        """A new session (token) of the player with this name and password; this client then acts as them."""
        body = self._call("POST", "/sessions", {"name": name, "password": password})
        self.token = body["token"]
        return Registered(body["player"]["id"], body["player"]["name"], body["token"])

    def set_password(self, password: str, current: str | None = None) -> None:
        """Set this player's password (``current``: the one set now, once there is one)."""
        self._call("PUT", "/players/me/password", {"password": password, **({"current": current} if current else {})})

    def sessions(self) -> Json:
        """``{"sessions": [{"id", "created_at", "last_seen_at", "current"}], "password"}``."""
        return self._call("GET", "/players/me/sessions")

    def end_session(self, session_id: str) -> None:
        """Log one of this player's devices out (its token stops working at once)."""
        self._call("DELETE", f"/players/me/sessions/{session_id}")

    def own_matches(self, status: str = "playing", after: str | None = None, limit: int = 50) -> list[Json]:
        """This player's matches of ``status``, newest first; ``after``: the last id of the page before."""
        query = {"status": status, "limit": limit, **({"after": after} if after else {})}
        return self._call("GET", "/players/me/matches", query=query)["matches"]

    def create_match(self, **options: Any) -> Json:
        """Create a match (options as API.md: opponent, rules, first_dealer, start_scores, decks)."""
        return self._call("POST", "/matches", options)

    def join(self, match_id: str, accept_custom: bool = False, invite: str | None = None) -> Json:
        """Take seat B; a custom match needs ``accept_custom`` (else 409 ``CUSTOM_TERMS``, saying its terms),
        a private one its creator's ``invite`` (else 404, as for no match)."""
        body = {"accept_custom": accept_custom, **({"invite": invite} if invite else {})}
        return self._call("POST", f"/matches/{match_id}/join", body)

    def act(self, match_id: str, action: Json, if_match: int | None = None, idempotency_key: str | None = None) -> Json:
        """Send one action body, e.g. ``{"type": "play", "card": "7H"}``; the recorded events.

        Every action carries an Idempotency-Key (a fresh one unless given), so resending it
        after a dropped connection can never act twice.
        """
        headers = {"Idempotency-Key": idempotency_key or uuid.uuid4().hex}
        if if_match is not None:
            headers["If-Match"] = f'"{if_match}"'
        return self._call("POST", f"/matches/{match_id}/actions", action, headers)

    # -- reading -------------------------------------------------------------------------
    def view(self, match_id: str, min_version: int = 0, wait: float = 0, invite: str | None = None) -> Json:
        """The match as this player may see it; waits up to ``wait`` s for ``min_version``. ``invite``:
        a private match's, to read its terms before joining it."""
        query = {"min_version": min_version, "wait": wait} if min_version else {}
        return self._call("GET", f"/matches/{match_id}", query=query, headers={"Invite": invite} if invite else None)

    def lobby(self, status: str = "waiting", limit: int = 50) -> list[Json]:
        return self._call("GET", "/matches", query={"status": status, "limit": limit})["matches"]

    def my_matches(self, player_id: str, status: str = "playing", limit: int = 1000) -> list[Json]:
        query = {"status": status, "limit": limit}
        return self._call("GET", f"/players/{player_id}/matches", query=query)["matches"]

    def scoreboard(self, limit: int = 50) -> Json:
        return self._call("GET", "/scoreboard", query={"limit": limit})

    def seek(self, rated: bool, rules: Json | None = None) -> Json:
        """Seek an opponent: ``{"id", "expires_at", ...}``; the player stream says ``paired``."""
        return self._call("POST", "/seeks", {"rated": rated, **({"rules": rules} if rules else {})})

    def withdraw_seek(self, seek_id: str) -> None:
        self._call("DELETE", f"/seeks/{seek_id}")

    def rematch(self, match_id: str) -> Json:
        """Offer a rematch (``{"offer"}``), or make it once the other player offered (the new match's view)."""
        return self._call("POST", f"/matches/{match_id}/rematch", {})

    def leaderboard(self, limit: int = 50, after: int = 0) -> list[Json]:
        return self._call("GET", "/leaderboard", query={"limit": limit, "after": after})["players"]

    def player(self, player_id: str) -> Json:
        return self._call("GET", f"/players/{player_id}")

    def ratings(self, player_id: str, after: int = 0, limit: int = 50) -> list[Json]:
        return self._call("GET", f"/players/{player_id}/ratings", query={"after": after, "limit": limit})["ratings"]

    def events(self, match_id: str, after: int = 0, limit: int = 200) -> list[Json]:
        return self._call("GET", f"/matches/{match_id}/events", query={"after": after, "limit": limit})["events"]

    def replay(self, match_id: str, version: int) -> Json:
        return self._call("GET", f"/matches/{match_id}/replay", query={"version": version})

    def stream(self, match_id: str) -> Iterator[Json]:
        """The match view each time it changes (server-sent events), until the match ends."""
        for message in self._events(f"/matches/{match_id}/stream"):
            if message.data is not None:
                yield message.data

    def player_stream(self, player_id: str, last_event_id: str | None = None) -> Iterator[ServerEvent]:
        """This player's notices (server-sent events) until the connection drops: ``turn``
        ``{"match_id", "version", "deadline"}`` where a match awaits them (first every such
        match at once), ``match`` ``{"match_id", "status", "version"}`` when one changes
        status. Pass the last ``id`` seen as ``last_event_id`` to read on after a drop."""
        yield from self._events(f"/players/{player_id}/stream",
                                {"Last-Event-ID": last_event_id} if last_event_id else {})

    def _events(self, path: str, headers: dict[str, str] | None = None) -> Iterator[ServerEvent]:
        """The server-sent events of ``path`` until the server ends the stream; comments skipped."""
        conn = http.client.HTTPConnection(self._host, self._port, timeout=self.timeout)
        try:
            conn.request("GET", path, headers=self._headers({"Accept": "text/event-stream", **(headers or {})}))
            response = conn.getresponse()
            if response.status != 200:
                raise _error(response.status, response.read(), response.getheader("Retry-After"))
            fields: dict[str, str] = {}
            data: list[str] = []
            for raw in response:
                line = raw.decode().rstrip("\r\n")
                if not line:  # a blank line ends a message
                    if data or "id" in fields:
                        yield ServerEvent(fields.get("event", "message"), fields.get("id"),
                                          json.loads("\n".join(data)) if data else None)
                    fields, data = {}, []
                elif not line.startswith(":"):  # a comment (keep-alive) is skipped
                    name, _, value = line.partition(":")
                    value = value[1:] if value.startswith(" ") else value
                    if name == "data":
                        data.append(value)
                    else:
                        fields[name] = value
        finally:
            conn.close()

    # -- plumbing ------------------------------------------------------------------------
    def _headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        headers = {"Accept": "application/json", **(extra or {})}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        if self.accept_language:
            headers["Accept-Language"] = self.accept_language
        return headers

    def _connection(self) -> http.client.HTTPConnection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = http.client.HTTPConnection(self._host, self._port, timeout=self.timeout)
        return conn

    def _call(self, method: str, path: str, body: Json | None = None, headers: dict[str, str] | None = None,
              query: Json | None = None) -> Any:
        if query:
            path = f"{path}?{urlencode(query)}"
        payload = None if body is None and method == "GET" else json.dumps(body or {}).encode()
        sent = self._headers({**(headers or {}), **({"Content-Type": "application/json"} if payload else {})})
        # A kept-alive connection the server closed meanwhile: resend once, but only what is
        # safe to resend (a read, or a write with an Idempotency-Key).
        attempts = 2 if method == "GET" or "Idempotency-Key" in sent else 1
        for attempt in range(1, attempts + 1):
            conn = self._connection()
            try:
                conn.request(method, path, body=payload, headers=sent)
                response = conn.getresponse()
                raw = response.read()
                break
            except (http.client.HTTPException, ConnectionError):
                conn.close()
                self._local.conn = None
                if attempt == attempts:
                    raise
        if response.status >= 400:
            raise _error(response.status, raw, response.getheader("Retry-After"))
        return json.loads(raw) if raw else None


def _error(status: int, raw: bytes, retry_after: str | None = None) -> ApiError:
    wait = _seconds(retry_after)
    try:
        body = json.loads(raw)
        return ApiError(status, body.get("error", "HTTP_ERROR"), body.get("message", ""), body.get("fields", {}),
                        wait, body.get("limit"))
    except (ValueError, AttributeError):
        return ApiError(status, "HTTP_ERROR", raw[:200].decode(errors="replace"), retry_after=wait)


def _seconds(retry_after: str | None) -> float | None:
    """Retry-After's delay in seconds (this API sends seconds; an HTTP date is not read)."""
    try:
        return max(0.0, float(retry_after)) if retry_after else None
    except ValueError:
        return None
