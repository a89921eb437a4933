"""Reads of a match's history through the API: /replay answers from checkpoints exactly what a
plain fold from version 0 shows, at every version; /replay and /events
are counted per client address (429 RATE_LIMITED, lifted by RATE_LIMITS=off); a stream position
past 2^63 - 1, in any query or header that takes one, is 400 INVALID_REQUEST."""
from __future__ import annotations

import orjson
import pytest

from shared.codec import encode
from shared.fold import FoldedMatch, fold
from shared.rules import Status, replay_view
from shared.rules.void_rounds import void_match
from tests.unit.api.support import fake_app

from .test_limits import assert_limited

TOO_FAR = 2**63
MATCH = "long"


def _app(client, **env: str):
    app = fake_app(client, {"RATE_LIMITS": "off", **env})
    store = app.extensions["truc"].store
    events = void_match(MATCH, rounds=12)  # some 300 events: checkpoints at 64, 128, ...
    for start in range(0, len(events), 100):
        store.append(MATCH, [encode(event) for event in events[start:start + 100]], start)
    return app, store, len(events)


def test_a_replay_from_checkpoints_shows_what_a_plain_fold_from_nothing_shows(fake_redis) -> None:
    app, store, last = _app(fake_redis)
    http, everything = app.test_client(), store.read(MATCH)
    now = fold(FoldedMatch(MATCH), everything).state
    assert now.status is Status.PLAYING  # a live match: the hands a spectator sees are hidden
    for version in range(last, 0, -1):  # from the last: later replays fold on from what the first kept
        answer = http.get(f"/matches/{MATCH}/replay?version={version}")
        assert answer.status_code == 200 and answer.headers["ETag"] == f'"{version}"'
        then = fold(FoldedMatch(MATCH), everything[:version]).state
        expected = orjson.loads(orjson.dumps({"id": MATCH, "version": version, **replay_view(then, None, now)}))
        assert answer.get_json() == expected
    assert len(app.extensions["truc"].checkpoints) == last // 64 + 1


def test_a_missing_match_is_404_and_keeps_no_fold(fake_redis) -> None:
    app, _, _ = _app(fake_redis)
    http, ctx = app.test_client(), app.extensions["truc"]
    for n in range(20):
        assert http.get(f"/matches/nobody-{n}/replay?version=1").status_code == 404
        assert http.get(f"/matches/nobody-{n}/events").status_code == 404
        assert ctx.matches.folds.get(f"nobody-{n}") is None
    assert len(ctx.checkpoints) == 0


@pytest.mark.parametrize("path, limit, setting", [
    (f"/matches/{MATCH}/replay?version=5", "replays", "REPLAYS_PER_MINUTE"),
    (f"/matches/{MATCH}/events?after=5", "events", "EVENT_READS_PER_MINUTE"),
])
def test_history_reads_are_limited_per_address(fake_redis, path: str, limit: str, setting: str) -> None:
    app, _, _ = _app(fake_redis, RATE_LIMITS="on", **{setting: "3"})
    http = app.test_client()
    served = [http.get(path, environ_base={"REMOTE_ADDR": "10.0.0.1"}) for _ in range(3)]
    assert [answer.status_code for answer in served] == [200] * 3
    assert [answer.headers["RateLimit-Remaining"] for answer in served] == ["2", "1", "0"]
    refused = http.get(path, environ_base={"REMOTE_ADDR": "10.0.0.1"})
    assert_limited(refused, limit, 3)
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert "reads match histories too fast" in refused.get_json()["message"]
    missing = path.replace(MATCH, "nobody")  # probing ids counts too: a 404 is a read as well
    assert http.get(missing, environ_base={"REMOTE_ADDR": "10.0.0.1"}).status_code == 429
    assert http.get(path, environ_base={"REMOTE_ADDR": "10.0.0.2"}).status_code == 200


def test_rate_limits_off_lifts_the_history_limits(fake_redis) -> None:
    app, _, _ = _app(fake_redis, REPLAYS_PER_MINUTE="1", EVENT_READS_PER_MINUTE="1")
    http = app.test_client()
    for _ in range(5):
        assert http.get(f"/matches/{MATCH}/replay?version=5").status_code == 200
        assert http.get(f"/matches/{MATCH}/events").status_code == 200


@pytest.mark.parametrize("path, headers", [
    (f"/matches/{MATCH}/events?after={TOO_FAR}", {}),
    (f"/matches/{MATCH}/events?after={2**64 - 1}", {}),
    (f"/matches/{MATCH}/replay?version={TOO_FAR}", {}),
    (f"/matches/{MATCH}?min_version={TOO_FAR}", {}),
    (f"/matches/{MATCH}/stream", {"Last-Event-ID": str(TOO_FAR)}),
])
def test_a_stream_position_past_the_last_one_redis_holds_is_a_bad_request(fake_redis, path, headers) -> None:
    app, _, _ = _app(fake_redis)
    answer = app.test_client().get(path, headers=headers)
    assert answer.status_code == 400, answer.get_json()
    body = answer.get_json()
    assert body["error"] == "INVALID_REQUEST" and list(body["fields"]) in (
        ["after"], ["version"], ["min_version"], ["Last-Event-ID"])
    assert "9223372036854775807" in next(iter(body["fields"].values()))[0]


@pytest.mark.parametrize("entry_id", [f"{TOO_FAR}-0", f"0-{TOO_FAR}", "99999999999999999999-1"])
def test_a_player_streams_position_past_the_last_one_redis_holds_is_a_bad_request(fake_redis, entry_id) -> None:
    app, _, _ = _app(fake_redis)
    http = app.test_client()
    token = http.post("/players", json={"name": "alice"}).get_json()
    answer = http.get(f"/players/{token['id']}/stream", headers={
        "Authorization": f"Bearer {token['token']}", "Last-Event-ID": entry_id})
    assert answer.status_code == 400
    assert answer.get_json()["error"] == "INVALID_REQUEST" and list(answer.get_json()["fields"]) == ["Last-Event-ID"]


def test_the_last_position_is_still_a_position(fake_redis) -> None:
    app, _, last = _app(fake_redis)
    http = app.test_client()
    assert http.get(f"/matches/{MATCH}/events?after={TOO_FAR - 1}").get_json() == {"events": []}
    assert http.get(f"/matches/{MATCH}/replay?version={TOO_FAR - 1}").status_code == 404  # past the last version
    assert http.get(f"/matches/{MATCH}?min_version={TOO_FAR - 1}").status_code == 200
