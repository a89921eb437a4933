"""Metrics and log lines from the running stack: /metrics on the API, the workers' own ports."""
import random
import urllib.request

import orjson
from prometheus_client.parser import text_string_to_metric_families

from tests.waiting import wait_for

from .table import new_match, play_to_the_end


def _scrape(url: str) -> dict[tuple[str, tuple], float]:
    with urllib.request.urlopen(url, timeout=10) as reply:
        assert reply.headers["Content-Type"].startswith("text/plain")
        text = reply.read().decode()
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def _commands(samples: dict) -> float:
    return sum(value for (name, _), value in samples.items() if name == "truc_commands_total")


def _worker_ports(stack) -> list[int]:
    ports = []
    for log in stack.logs.glob("worker-*.log"):
        for line in log.read_text().splitlines():
            if line.startswith("{") and "metrics on" in line:
                ports.append(orjson.loads(line)["metrics_port"])
    return ports


def test_the_api_counts_commands_and_the_workers_their_catch_ups(stack):
    url = f"http://127.0.0.1:{stack.env['PORT']}/metrics"
    before = _commands(_scrape(url))
    match_id, a, b = new_match(stack)
    play_to_the_end(stack, match_id, {"A": a, "B": b}, random.Random(5))
    after = _scrape(url)
    assert _commands(after) > before
    assert not any(match_id in str(labels) for _, labels in after)  # no match id in a label
    assert ("truc_figures_up", ()) in after and after[("truc_figures_up", ())] == 1.0
    ports = wait_for(lambda: _worker_ports(stack), lambda found: len(found) >= 2, seconds=10)
    assert len(ports) >= 2
    caught_up = sum(_scrape(f"http://127.0.0.1:{port}/metrics").get(("truc_catch_up_duration_seconds_count", ()), 0)
                    for port in ports)
    assert caught_up > 0


def test_every_answer_carries_a_request_id_and_the_api_logs_it(stack):
    reply = stack.http.get("/health", headers={"X-Request-ID": "e2e-rid.1"})
    assert reply.headers.get("x-request-id") == "e2e-rid.1"
    refused = stack.http.request("POST", "/players", {"name": "\u202e"}, headers={"X-Request-ID": "e2e-refused.1"})
    assert refused.status == 400
    log = (stack.logs / "api.log").read_text()
    lines = [orjson.loads(line) for line in log.splitlines() if line.startswith("{")]
    # A refused command is logged at INFO (a recorded one only at DEBUG), under the client's request id.
    assert any(line.get("msg") == "register INVALID_REQUEST" and line.get("request_id") == "e2e-refused.1"
               for line in lines)
