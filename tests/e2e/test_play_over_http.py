"""Complete matches over HTTP against the running services."""
import random
import threading
from collections import Counter

from shared import keys

from .table import new_match, play_to_the_end, register, stream_version, view


def test_a_full_match_from_registration_to_a_winner_counts_once_on_the_scoreboard(stack):
    match_id, a, b = new_match(stack)

    final = play_to_the_end(stack, match_id, {"A": a, "B": b}, random.Random(7))

    assert final["status"] == "finished" and final["winner"] in ("A", "B")
    assert final["scores"][final["winner"]] >= final["rules"]["target"]
    assert final["version"] == stream_version(stack, match_id)
    rows = {p.id: stack.http.get(f"/players/{p.id}").body for p in (a, b)}
    winner = a if final["winner"] == "A" else b
    for player in (a, b):
        assert rows[player.id]["matches_played"] == 1
        assert rows[player.id]["matches_won"] == (1 if player is winner else 0)
    board = stack.http.get("/scoreboard?limit=500").body
    listed = [row for row in board["players"] if row["id"] in (a.id, b.id)]
    assert len(listed) == 2 and listed[0]["id"] == winner.id


def test_the_lobby_lists_waiting_matches(stack):
    a = register(stack)
    created = stack.http.post("/matches", {}, token=a.token)
    match_id = created.body["id"]
    view(stack, match_id, None, created.body["version"])

    lobby = stack.http.get("/matches?status=waiting&limit=200").body["matches"]

    assert match_id in [m["id"] for m in lobby]
    assert all(m["status"] == "waiting" for m in lobby)


def test_racing_clients_get_exactly_one_action_accepted_per_version(stack):
    match_id, a, b = new_match(stack)
    seats = {"A": a, "B": b}
    outcomes = Counter()
    for _ in range(12):
        spectator = view(stack, match_id, None, stream_version(stack, match_id))
        if spectator["status"] != "playing":
            break
        version = spectator["version"]
        # Every seat fires every legal action at once, all claiming the same version.
        shots = [
            (seat, act) for seat, p in seats.items() for act in view(stack, match_id, p.token, version)["legal_actions"]
        ]
        results: list[int] = []
        barrier = threading.Barrier(len(shots))

        def fire(seat, action, version=version, barrier=barrier, results=results):
            barrier.wait()
            reply = stack.http.post(f"/matches/{match_id}/actions", action, token=seats[seat].token,
                                    headers={"If-Match": f'"{version}"'})
            results.append(reply.status)

        threads = [threading.Thread(target=fire, args=shot) for shot in shots]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert results.count(200) == 1 and set(results) <= {200, 412}, results
        outcomes.update(results)
    versions = [int(entry_id.split(b"-")[0]) for entry_id, _ in stack.redis.xrange(keys.match_events(match_id))]
    assert versions == list(range(1, len(versions) + 1))
    assert outcomes[412] > 0


def test_an_idempotency_key_retry_records_nothing_new(stack):
    match_id, a, b = new_match(stack)
    turn = view(stack, match_id, None, stream_version(stack, match_id))["round"]["turn"]
    actor = a if turn == "A" else b
    headers = {"Idempotency-Key": "retry-1"}

    first = stack.http.post(f"/matches/{match_id}/actions", {"type": "raise"}, token=actor.token, headers=headers)
    version = stream_version(stack, match_id)
    again = stack.http.post(f"/matches/{match_id}/actions", {"type": "raise"}, token=actor.token, headers=headers)
    reused = stack.http.post(f"/matches/{match_id}/actions", {"type": "fold"}, token=actor.token, headers=headers)

    assert first.status == again.status == 200
    assert again.body == first.body
    assert reused.status == 422 and reused.body["error"] == "IDEMPOTENCY_KEY_REUSED"
    assert stream_version(stack, match_id) == version
