"""Request ids, log lines and metrics (shared/observability and the API's use of them)."""
import io
import logging

import orjson
import pytest
from prometheus_client.parser import text_string_to_metric_families

from shared.observability import log_context, logs, metrics
from tests.unit.api.support import fake_app

SAFE = ["a", "abc.1", "A-b_c.9", "x" * 64]
UNSAFE = ["", " ", "x" * 65, "a b", "a\nb", "é", "a/b", "a;b", "<script>"]


@pytest.mark.parametrize("sent", SAFE)
def test_a_safe_request_id_is_kept(sent):
    assert log_context.request_id(sent) == sent


@pytest.mark.parametrize("sent", [*UNSAFE, None])
def test_an_unsafe_or_missing_request_id_is_replaced_by_a_new_one(sent):
    made = log_context.request_id(sent)
    assert made != sent and len(made) == 32 and made.isalnum()
    assert log_context.request_id(sent) != made  # a new one each time


@pytest.fixture
def app(fake_redis):
    return fake_app(fake_redis, {"RATE_LIMITS": "off"})


@pytest.fixture
def lines():
    stream = io.StringIO()
    handler = logs.setup("json", "DEBUG", service="api", stream=stream)  # a recorded command logs at DEBUG
    yield lambda: [orjson.loads(line) for line in stream.getvalue().splitlines()]
    logging.getLogger().removeHandler(handler)


def _player(client, name):
    body = client.post("/players", json={"name": name}).get_json()
    return body["id"], {"Authorization": f"Bearer {body['token']}"}, body["token"]


def _play_a_match(client, a, b):
    created = client.post("/matches", json={}, headers=a).get_json()
    client.post(f"/matches/{created['id']}/join", headers=b)
    client.post(f"/matches/{created['id']}/actions", json={"type": "resign"}, headers=a)
    return created["id"]


def test_every_answer_echoes_its_request_id(app):
    client = app.test_client()
    assert client.get("/health", headers={"X-Request-ID": "abc.1"}).headers["X-Request-ID"] == "abc.1"
    replaced = client.get("/nowhere", headers={"X-Request-ID": "not safe!"}).headers["X-Request-ID"]
    assert replaced != "not safe!" and len(replaced) == 32
    assert len(client.post("/players", json={}).headers["X-Request-ID"]) == 32  # a 422 too


def test_log_lines_are_json_with_the_request_and_no_token(app, lines):
    client = app.test_client()
    alice, a, token = _player(client, "alice")
    _, b, _ = _player(client, "bob")
    headers = {**a, "X-Request-ID": "req-42"}
    refused = client.post("/matches", json={"token": token, "seed": "s3cr3t-seed"}, headers={**a, "X-Request-ID": "r1"})
    assert refused.status_code in (400, 422) and refused.headers["X-Request-ID"] == "r1"
    created = client.post("/matches", json={}, headers=headers).get_json()
    logging.getLogger("test").warning("Authorization: Bearer %s token=%s", token, token, extra={"seed": "s3cr3t-seed"})
    output = lines()
    assert output, "nothing was logged"
    command = next(line for line in output if line.get("request_id") == "req-42" and line["msg"].startswith("create"))
    assert command["level"] == "debug" and command["player_id"] == alice and command["service"] == "api"
    assert next(line for line in output if line.get("request_id") == "r1")["msg"] == "create INVALID_REQUEST"
    text = orjson.dumps(output).decode()
    assert token not in text and "s3cr3t-seed" not in text and created["id"]


def test_the_text_format_masks_secrets_too():
    record = logging.makeLogRecord({"msg": "got Bearer abc.def token=xyz", "levelno": 20, "levelname": "INFO",
                                    "name": "t", "token": "xyz", "match_id": "m1"})
    line = logs.TextFormatter().format(record)
    assert "abc.def" not in line and "xyz" not in line and "match_id=m1" in line


def _samples(client):
    text = client.get("/metrics").get_data(as_text=True)
    return [sample for family in text_string_to_metric_families(text) for sample in family.samples
            if sample.name.startswith("truc_")]


def test_metrics_labels_stay_bounded_as_matches_are_played(app):
    client = app.test_client()
    a_id, a, _ = _player(client, "carol")
    b_id, b, _ = _player(client, "dave")
    first = _play_a_match(client, a, b)
    _samples(client)  # the scrape counts itself
    label_sets = {(s.name, tuple(sorted(s.labels.items()))) for s in _samples(client)}
    ids = [first, a_id, b_id] + [_play_a_match(client, a, b) for _ in range(2)]
    samples = _samples(client)
    assert {(s.name, tuple(sorted(s.labels.items()))) for s in samples} == label_sets  # no new series
    values = " ".join(value for s in samples for value in s.labels.values())
    assert not any(identifier in values for identifier in ids)
    counted = {(s.labels["command"], s.labels["outcome"]): s.value for s in samples
               if s.name == "truc_commands_total"}
    assert counted[("create", "recorded")] >= 3 and counted[("act:resign", "recorded")] >= 3
    routes = {s.labels["route"] for s in samples if s.name == "truc_http_requests_total"}
    assert "/matches/<id:match_id>/join" in routes


def test_metric_names_follow_the_conventions():
    for collector in (metrics.REQUESTS, metrics.COMMANDS, metrics.TIMEOUTS, metrics.LIMITS_HIT):
        assert collector.describe()[0].name.startswith("truc_")
    assert metrics.COMMAND_SECONDS.describe()[0].name.endswith("_seconds")
    assert metrics.outcome_of("MATCH_OVER") == "MATCH_OVER" and metrics.outcome_of("m-123") == "error"


def test_metrics_off_serves_no_metrics(fake_redis):
    app = fake_app(fake_redis, {"METRICS": "off"})
    try:
        assert app.test_client().get("/metrics").status_code == 404
        assert "X-Request-ID" in app.test_client().get("/health").headers
    finally:
        metrics.configure(True)


@pytest.mark.parametrize("body", [{"type": []}, {"type": {"a": 1}}, [1], "x", {"type": "nope"}])
def test_a_malformed_action_is_counted_as_invalid(app, body):
    client = app.test_client()
    _, a, _ = _player(client, "erin")
    assert client.post("/matches/abcdefghijklmnop/actions", json=body, headers=a).status_code < 500
    assert any(s.labels.get("command") == "act:invalid" for s in _samples(client) if s.name == "truc_commands_total")


def test_gunicorn_writes_an_access_line_per_request_only_when_asked():
    assert logs.gunicorn_dict("json", "INFO")["loggers"]["gunicorn.access"]["level"] == "WARNING"
    assert logs.gunicorn_dict("json", "INFO", access=True)["loggers"]["gunicorn.access"]["level"] == "INFO"
