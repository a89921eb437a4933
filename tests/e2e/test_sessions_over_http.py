"""Sessions on two API processes over one Redis: a login on one, its token remembered by both (no
Redis lookup per request), its last use written in the background, and its revocation refused by
both within moments; and a player's own matches, paged newest first, over the whole stack."""
from __future__ import annotations

import time
import uuid

from tests.waiting import wait_for, wait_until

from . import test_token_rotation_over_http as rotation
from .conftest import Stack
from .table import registered
from .test_token_rotation_over_http import _answers_from_memory, _status

two_apis = rotation.two_apis  # its fixture: two API processes over one Redis

PASSWORD = "a long enough secret"


def test_a_login_on_one_process_is_known_to_both_and_its_revocation_refused_by_both(two_apis) -> None:
    apis, store = two_apis
    registered = apis[0].post("/players", {"name": "two-devices", "password": PASSWORD})
    assert registered.status == 201
    first = registered.body["token"]
    login = apis[1].post("/sessions", {"name": "Two-Devices", "password": PASSWORD})
    assert login.status == 201 and login.body["player"]["id"] == registered.body["id"]
    second, session_id = login.body["token"], login.body["id"]
    for api in apis:  # authentication from memory: the login's token costs no lookup per request
        assert wait_for(lambda api=api: _answers_from_memory(api, store, second), bool, seconds=15)

    listed = wait_for(lambda: apis[0].get("/players/me/sessions", token=first).body,
                      lambda body: all(line["last_seen_at"] for line in body["sessions"]), seconds=15)
    assert [line["current"] for line in listed["sessions"]] == [True, False]
    assert all(line["last_seen_at"] for line in listed["sessions"]), "a used session's last use was never written"
    assert listed["password"] is True

    assert apis[0].request("DELETE", f"/players/me/sessions/{session_id}", token=first).status == 204
    revoked_at = time.monotonic()
    for api in apis:  # a liveness bound; the second of the contract is the push's, measured and printed
        wait_until(lambda api=api: _status(api, second) == 401, timeout=10, what="a process to refuse the session")
        assert _status(api, first) == 201
    print(f"every process refused the revoked session within {time.monotonic() - revoked_at:.3f} s")
    assert apis[1].post("/sessions", {"name": "two-devices", "password": "not it at all"}).body == {
        "error": "BAD_CREDENTIALS", "message": "This name and password do not match."}


def test_a_players_own_matches_are_listed_newest_first_and_paged(stack: Stack) -> None:
    name = f"pager-{uuid.uuid4().hex[:8]}"
    token = stack.http.post("/players", {"name": name}).body["token"]
    created = [stack.http.post("/matches", {"opponent": "bot"}, token=token).body["id"] for _ in range(3)]

    def page(after: str | None = None) -> list[str]:
        query = "/players/me/matches?status=playing&limit=2" + (f"&after={after}" if after else "")
        reply = stack.http.get(query, token=token)
        assert reply.status == 200 and reply.headers["cache-control"] == "private, no-store"
        return [line["id"] for line in reply.body["matches"]]

    wait_until(lambda: len(page()) == 2 and len(page(page()[-1])) == 1, timeout=15,
               what="the three matches to be projected")
    first = page()
    assert first + page(first[-1]) == list(reversed(created))  # each once, newest first
    assert stack.http.get("/players/me/matches", token=None).status == 401


def test_a_changed_password_logs_every_other_device_out_and_keeps_this_one(stack: Stack) -> None:
    name = f"changer-{uuid.uuid4().hex[:8]}"
    player = registered(stack, name, PASSWORD)
    logins = [stack.http.post("/sessions", {"name": name, "password": PASSWORD}) for _ in range(2)]
    devices = [player.token] + [login.body["token"] for login in logins]
    changer, others = devices[1], [devices[0], devices[2]]

    def answers(token: str) -> int:
        return stack.http.get("/players/me/sessions", token=token).status

    assert [answers(token) for token in devices] == [200, 200, 200]
    body = {"password": "another long secret", "current": PASSWORD}
    changed = stack.http.request("PUT", "/players/me/password", body, token=changer)
    assert changed.status == 204, changed.body
    for token in others:  # the registration's token and the other login alike
        wait_until(lambda token=token: answers(token) == 401, timeout=10, what="another device's token to be refused")
    listed = stack.http.get("/players/me/sessions", token=changer)
    assert listed.status == 200 and [line["current"] for line in listed.body["sessions"]] == [True]
    assert stack.http.post("/sessions", {"name": name, "password": PASSWORD}).status == 401  # the old one is gone
    assert stack.http.post("/sessions", {"name": name, "password": "another long secret"}).status == 201
