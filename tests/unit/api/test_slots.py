"""Live streams are capped per API process (a configurable bound far above 5,000 by default)."""
import threading

from services.api.slots import Slots as StreamSlots
from shared.config import Config
from tests.unit.api.support import fake_app


def test_streams_past_the_cap_are_refused_at_once_until_one_ends(fake_redis):
    client = fake_redis
    app = fake_app(client, {"MAX_STREAMS": "2"})
    http = app.test_client()
    match_id = http.post("/matches", json={}, headers=_auth(http, "alice")).get_json()["id"]
    url = f"/matches/{match_id}/stream"

    first, second = http.get(url, buffered=False), http.get(url, buffered=False)
    assert (first.status_code, second.status_code) == (200, 200)
    assert b"event: view" in next(first.response)
    refused = http.get(url, buffered=False)
    assert refused.status_code == 503
    assert refused.get_json()["error"] == "STREAMS_BUSY" and refused.headers["Retry-After"] == "2"
    assert http.get(f"/matches/{match_id}").status_code == 200  # everything else is still served

    first.close()  # the viewer left
    again = http.get(url, buffered=False)
    assert again.status_code == 200
    again.close(), second.close()
    assert app.extensions["truc"].streams.open == 0


def test_the_cap_defaults_far_above_five_thousand_streams_and_is_configurable():
    assert Config.from_env({"REDIS_URL": "redis://x"}).max_streams == 10_000
    assert Config.from_env({"REDIS_URL": "redis://x", "API_THREADS": "2"}).max_streams == 10_000  # threads: no matter
    assert Config.from_env({"REDIS_URL": "redis://x", "MAX_STREAMS": "30"}).max_streams == 30
    assert Config.from_env({"REDIS_URL": "redis://x", "MAX_STREAMS": "30"}).worker_connections > 30


def test_a_slot_is_given_back_once_however_often_its_stream_closes():
    slots = StreamSlots(2)
    give_back = slots.take()
    assert slots.take() is not None and slots.take() is None
    give_back(), give_back()
    assert slots.open == 1
    assert slots.take() is not None and slots.take() is None


def test_racing_threads_never_hold_more_slots_than_the_cap():
    slots, held, lock = StreamSlots(3), [], threading.Lock()

    def grab():
        give_back = slots.take()
        if give_back is not None:
            with lock:
                held.append(give_back)

    threads = [threading.Thread(target=grab) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(held) == 3 and slots.open == 3


def _auth(http, name: str) -> dict:
    token = http.post("/players", json={"name": name}).get_json()["token"]
    return {"Authorization": f"Bearer {token}"}
