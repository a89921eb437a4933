"""Reads that wait for a version are woken by the projector's writes, and bounded per client."""
from __future__ import annotations

import threading

import pytest

from services.api.slots import Slots
from shared import keys
from shared.readmodels import ReadModels
from shared.readmodels.changes import ViewChanges
from shared.subscriber import Subscriber
from tests.unit.api.support import fake_app
from tests.unit.projector.test_readmodels import summary_of, views_of


def test_a_wait_looks_at_the_views_only_when_woken_or_rarely(fake_redis) -> None:
    changes = ViewChanges(Subscriber(fake_redis), recheck_seconds=0.2)
    looks: list[int] = []
    version = changes.wait_until("m1", lambda: looks.append(1) or 0, min_version=1, timeout_s=0.6)
    assert version == 0
    assert len(looks) <= 5  # a first look and one per recheck; polling every 5 ms would look ~120 times


def test_a_write_of_the_views_wakes_the_wait_on_that_match(fake_redis) -> None:
    readmodels = ReadModels(fake_redis)
    readmodels.write_match("m1", 1, views_of(1), summary_of("m1", "waiting"))
    changes = ViewChanges(Subscriber(fake_redis), recheck_seconds=60)  # only a message can end this wait early
    writer = threading.Timer(0.2, readmodels.write_match, ("m1", 2, views_of(2), summary_of("m1", "playing", 2)))
    writer.start()
    assert changes.wait_until("m1", lambda: readmodels.projected_version("m1"), 2, timeout_s=30) == 2
    writer.join()


def test_slots_are_bounded_per_client_and_in_all() -> None:
    slots = Slots(3, per_client=2)
    first, second = slots.take("10.0.0.1"), slots.take("10.0.0.1")
    assert first and second and slots.take("10.0.0.1") is None
    assert slots.take("10.0.0.2") is not None and slots.take("10.0.0.3") is None
    first()
    first()  # given back once only
    assert slots.open == 2 and slots.take("10.0.0.1") is not None


@pytest.fixture
def http_and_waits(fake_redis, monkeypatch):
    app = fake_app(fake_redis, {"WAITS_PER_CLIENT": "1"})
    waited: list[int] = []
    monkeypatch.setattr(ReadModels, "wait_for_version", lambda self, match_id, version, timeout: waited.append(version))
    return app.test_client(), waited, app.extensions["truc"]


def _new_match(http) -> str:
    token = http.post("/players", json={"name": "alice"}).get_json()["token"]
    return http.post("/matches", json={}, headers={"Authorization": f"Bearer {token}"}).get_json()["id"]


def test_a_version_past_the_next_event_is_answered_at_once(http_and_waits) -> None:
    http, waited, _ = http_and_waits
    match_id = _new_match(http)  # version 1
    for far in (3, 999999999):
        reply = http.get(f"/matches/{match_id}?min_version={far}&wait=3")
        assert reply.status_code == 200 and waited == []
    http.get(f"/matches/{match_id}?min_version=2&wait=3")  # the next event: the opponent's move
    assert waited == [2]


def test_a_client_past_its_share_of_waits_is_answered_at_once(http_and_waits) -> None:
    http, waited, ctx = http_and_waits
    match_id = _new_match(http)  # version 1; its views are not projected (no worker here)
    held = ctx.waits.take("127.0.0.1")  # this client's one wait is in use
    http.get(f"/matches/{match_id}?min_version=1&wait=3")
    assert waited == []
    held()
    http.get(f"/matches/{match_id}?min_version=1&wait=3")
    assert waited == [1]


def test_waits_and_live_streams_share_the_processs_one_subscriber(fake_redis) -> None:
    app = fake_app(fake_redis)
    ctx = app.extensions["truc"]
    readmodels = ReadModels(fake_redis)
    readmodels.write_match("m1", 1, views_of(1), summary_of("m1", "waiting"))
    writer = threading.Timer(0.3, readmodels.write_match, ("m1", 2, views_of(2), summary_of("m1", "playing", 2)))
    before = set(threading.enumerate())
    with ctx.feeds.matches.watching("m1") as feed:
        changed = feed.changed
        writer.start()
        assert ctx.read_models.wait_for_version("m1", 2, timeout_s=30) == 2
        fake_redis.publish(keys.MATCHES_APPENDED, "m1")
        assert changed.wait(5)  # woken by the same subscriber as the wait
        assert [thread.name for thread in set(threading.enumerate()) - before].count("subscriber") == 1
    writer.join()
