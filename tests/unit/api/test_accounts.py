"""Accounts: a password, a session per device (logged in, listed, revoked), and the player's own matches."""
from __future__ import annotations

import logging

import pytest

from services.api import passwords
from shared import keys
from tests.unit.api.support import fake_app

PASSWORD = "correct horse battery"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def ticket_status(http, token: str) -> int:
    return http.post("/stream-tickets", headers=bearer(token)).status_code


@pytest.fixture
def http(fake_redis):
    return fake_app(fake_redis).test_client()


def test_a_player_with_a_password_logs_in_on_another_device_and_both_tokens_work(http) -> None:
    registered = http.post("/players", json={"name": "Alice", "password": PASSWORD})
    assert registered.status_code == 201 and set(registered.get_json()) == {"id", "name", "token"}
    login = http.post("/sessions", json={"name": "alice", "password": PASSWORD})  # any spelling of the name
    assert login.status_code == 201
    body = login.get_json()
    assert set(body) == {"id", "token", "player"}
    assert body["player"] == {"id": registered.get_json()["id"], "name": "Alice"}
    assert body["token"] != registered.get_json()["token"]
    assert ticket_status(http, body["token"]) == 201 and ticket_status(http, registered.get_json()["token"]) == 201
    listed = http.get("/players/me/sessions", headers=bearer(body["token"])).get_json()
    assert listed["password"] is True
    shown = [(line["id"] == body["id"], line["current"]) for line in listed["sessions"]]
    assert shown == [(False, False), (True, True)]
    assert all(set(line) == {"id", "created_at", "last_seen_at", "current"} for line in listed["sessions"])


def test_a_wrong_password_and_an_unknown_name_get_the_same_answer_after_the_same_work(http, monkeypatch) -> None:
    http.post("/players", json={"name": "alice", "password": PASSWORD})
    checked = []
    real = passwords._matches
    monkeypatch.setattr(passwords, "_matches", lambda stored, given: checked.append(stored) or real(stored, given))
    wrong = http.post("/sessions", json={"name": "alice", "password": "not the password"})
    unknown = http.post("/sessions", json={"name": "nobody", "password": PASSWORD})
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.get_json() == unknown.get_json() == {"error": "BAD_CREDENTIALS",
                                                      "message": "This name and password do not match."}
    assert len(checked) == 2 and checked[1] == passwords._dummy_hash()  # the unknown name was verified too


def test_a_player_without_a_password_keeps_the_token_only_flow_and_cannot_be_logged_into(http) -> None:
    token = http.post("/players", json={"name": "bob"}).get_json()["token"]
    assert http.post("/sessions", json={"name": "bob", "password": "anything at all"}).status_code == 401
    listed = http.get("/players/me/sessions", headers=bearer(token)).get_json()
    assert listed["password"] is False
    assert [line["current"] for line in listed["sessions"]] == [True]  # the registration's token, listed


def test_a_revoked_session_is_refused_at_once_and_the_others_go_on(http) -> None:
    first = http.post("/players", json={"name": "alice", "password": PASSWORD}).get_json()["token"]
    second = http.post("/sessions", json={"name": "alice", "password": PASSWORD}).get_json()
    for _ in range(2):
        assert ticket_status(http, second["token"]) == 201  # remembered by this process
    assert http.delete(f"/players/me/sessions/{second['id']}", headers=bearer(first)).status_code == 204
    assert ticket_status(http, second["token"]) == 401 and ticket_status(http, first) == 201
    assert http.delete(f"/players/me/sessions/{second['id']}", headers=bearer(first)).get_json()["error"] == "NOT_FOUND"
    own = http.get("/players/me/sessions", headers=bearer(first)).get_json()["sessions"]
    assert len(own) == 1 and own[0]["current"]
    assert http.delete(f"/players/me/sessions/{own[0]['id']}", headers=bearer(first)).status_code == 204  # log out
    assert ticket_status(http, first) == 401


def test_nobody_revokes_another_players_session(http) -> None:
    alice = http.post("/players", json={"name": "alice"}).get_json()["token"]
    bob = http.post("/players", json={"name": "bob"}).get_json()["token"]
    alices = http.get("/players/me/sessions", headers=bearer(alice)).get_json()["sessions"][0]["id"]
    assert http.delete(f"/players/me/sessions/{alices}", headers=bearer(bob)).status_code == 404
    assert ticket_status(http, alice) == 201


def test_a_password_is_set_later_and_changed_only_with_the_current_one(http) -> None:
    token = http.post("/players", json={"name": "carol"}).get_json()["token"]
    assert http.put("/players/me/password", json={"password": "short"}, headers=bearer(token)).status_code == 400
    assert http.put("/players/me/password", json={"password": PASSWORD}, headers=bearer(token)).status_code == 204
    missing = http.put("/players/me/password", json={"password": "another password"}, headers=bearer(token))
    assert missing.status_code == 400 and "current" in missing.get_json()["fields"]
    wrong = http.put("/players/me/password", json={"password": "another password", "current": "nope nope"},
                     headers=bearer(token))
    assert wrong.status_code == 403 and wrong.get_json()["error"] == "BAD_CREDENTIALS"
    changed = http.put("/players/me/password", json={"password": "another password", "current": PASSWORD},
                       headers=bearer(token))
    assert changed.status_code == 204
    assert http.post("/sessions", json={"name": "carol", "password": PASSWORD}).status_code == 401
    assert http.post("/sessions", json={"name": "carol", "password": "another password"}).status_code == 201


def test_a_bad_password_at_registration_records_no_player(http, fake_redis) -> None:
    refused = http.post("/players", json={"name": "dave", "password": "x" * 7})
    assert refused.status_code == 400 and "password" in refused.get_json()["fields"]
    assert http.post("/players", json={"name": "dave", "password": "x" * 129}).status_code == 400
    assert fake_redis.get(keys.player_name("dave")) is None


def test_the_password_is_stored_only_as_an_argon2id_hash(http, fake_redis) -> None:
    player_id = http.post("/players", json={"name": "erin", "password": PASSWORD}).get_json()["id"]
    stored = fake_redis.hget(keys.player(player_id), passwords.PASSWORD_FIELD).decode()
    assert stored.startswith("$argon2id$") and PASSWORD not in stored
    assert not any(PASSWORD.encode() in (fake_redis.dump(key) or b"") for key in fake_redis.keys("*"))


def test_a_rotated_token_keeps_its_session(http) -> None:
    token = http.post("/players", json={"name": "fay"}).get_json()["token"]
    before = http.get("/players/me/sessions", headers=bearer(token)).get_json()["sessions"]
    rotated = http.post("/players/me/token", headers=bearer(token)).get_json()["token"]
    after = http.get("/players/me/sessions", headers=bearer(rotated)).get_json()["sessions"]
    assert [line["id"] for line in after] == [line["id"] for line in before] and after[0]["current"]


def test_revoking_all_of_a_players_sessions_refuses_every_token(fake_redis) -> None:
    app = fake_app(fake_redis)
    http = app.test_client()
    body = http.post("/players", json={"name": "gus", "password": PASSWORD}).get_json()
    other = http.post("/sessions", json={"name": "gus", "password": PASSWORD}).get_json()["token"]
    rotated = http.post("/players/me/token", headers=bearer(body["token"])).get_json()["token"]
    assert app.extensions["truc"].sessions.revoke_all(body["id"]) == 2
    assert ticket_status(http, rotated) == 401 and ticket_status(http, other) == 401
    assert fake_redis.keys(keys.player_token("*")) == []


def test_login_attempts_are_limited_per_name_and_per_address(fake_redis) -> None:
    http = fake_app(fake_redis, {"NAME_LOGINS_PER_HOUR": "2", "LOGINS_PER_HOUR": "4"}).test_client()
    for _ in range(2):
        assert http.post("/sessions", json={"name": "Hal", "password": "wrong one"}).status_code == 401
    limited = http.post("/sessions", json={"name": "HAL", "password": "wrong one"})  # the same name, spelt otherwise
    assert limited.status_code == 429 and limited.get_json()["limit"] == "name_logins"
    assert {"Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} <= set(limited.headers.keys())
    assert http.post("/sessions", json={"name": "ivy", "password": "wrong one"}).status_code == 401
    by_address = http.post("/sessions", json={"name": "jo", "password": "wrong one"})
    assert by_address.status_code == 429 and by_address.get_json()["limit"] == "logins"


def test_my_matches_need_a_token_and_take_only_known_statuses(http) -> None:
    assert http.get("/players/me/matches").status_code == 401
    token = http.post("/players", json={"name": "kim"}).get_json()["token"]
    assert http.get("/players/me/matches", headers=bearer(token)).get_json() == {"matches": []}
    assert http.get("/players/me/matches?status=lost", headers=bearer(token)).status_code == 400
    assert http.get("/players/me/matches?after=a:b", headers=bearer(token)).status_code == 400


def test_the_openapi_document_declares_the_bearer_scheme_and_the_account_routes(http) -> None:
    spec = http.get("/openapi.json").get_json()
    assert spec["components"]["securitySchemes"]["bearer"] == {**spec["components"]["securitySchemes"]["bearer"],
                                                               "type": "http", "scheme": "bearer"}
    assert {"bearer": []} in spec["security"]
    for path, method in (("/sessions", "post"), ("/players/me/sessions", "get"), ("/players/me/password", "put"),
                         ("/players/me/sessions/{session_id}", "delete"), ("/players/me/matches", "get")):
        assert method in spec["paths"][path]
    assert "password" in spec["components"]["schemas"]["PlayerCreate"]["properties"]


def test_a_failed_health_probe_logs_one_line_and_no_traceback(caplog) -> None:
    class Unreachable:
        def __getattr__(self, name):
            def fail(*args, **kwargs):
                raise ConnectionError("the socket is gone")
            return fail

    http = fake_app(Unreachable()).test_client()
    with caplog.at_level(logging.WARNING):
        assert http.get("/health").status_code == 503
    failed = [record for record in caplog.records if "health check failed" in record.getMessage()]
    assert len(failed) == 1 and failed[0].exc_info is None and "the socket is gone" in failed[0].getMessage()
