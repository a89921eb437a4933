"""A damaged match stream is answered with a clear 503, never a bare 500."""
import fakeredis

from shared import keys
from tests.unit.api.support import fake_app


def test_actions_and_history_of_a_damaged_match_answer_match_unreadable():
    client = fakeredis.FakeRedis(server=fakeredis.FakeServer())
    app = fake_app(client)
    http = app.test_client()
    token = http.post("/players", json={"name": "alice"}).get_json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    match_id = http.post("/matches", json={}, headers=auth).get_json()["id"]
    client.xadd(keys.match_events(match_id), {"t": "no_such_event", "s": "1", "at": "0", "d": "{}"}, id="2-0")

    for reply in (http.post(f"/matches/{match_id}/actions", json={"type": "fold"}, headers=auth),
                  http.get(f"/matches/{match_id}/replay?version=2"),
                  http.post(f"/matches/{match_id}/join", headers=auth)):
        assert reply.status_code == 503 and reply.get_json()["error"] == "MATCH_UNREADABLE"
