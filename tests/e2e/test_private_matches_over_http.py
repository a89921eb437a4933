"""Join sniping, reproduced against the real stack (an API of its own with the limits on, on the
end-to-end Redis and its projector workers): a script lists the lobby and joins every waiting
match it finds. The private match is not there, and without its invite it does not exist; its
friend joins with it. A player's burst of joins stops at MAX_PLAYING, and joins are rate-limited."""
from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from shared import keys

from ..waiting import wait_until
from .conftest import ROOT
from .http import Http

JOINS_PER_HOUR = 12  # per player, for this API; MAX_PLAYING stays at its default, 10
MAX_PLAYING = 10


@pytest.fixture(scope="module")
def guarded(stack) -> Iterator[Http]:
    """An API with the limits on (registrations and creations generous enough for the test's players)."""
    try:
        with stack.another_api("private-api", RATE_LIMITS="on", REGISTRATIONS_PER_HOUR="1000",
                               MATCHES_PER_HOUR="1000", JOINS_PER_HOUR=str(JOINS_PER_HOUR)) as base:
            yield Http(base)
    finally:
        for name in ("registrations", "client_joins"):  # the stack itself runs with the limits off
            stack.redis.delete(keys.limit(name, "127.0.0.1"))
        for player_id in _PLAYERS:
            stack.redis.delete(*(keys.limit(name, player_id) for name in ("matches", "waiting_matches", "joins",
                                                                           "playing", "actions")))


_PLAYERS: list[str] = []  # the ids registered here, whose limit keys the fixture removes


def _player(http: Http, prefix: str) -> str:
    reply = http.post("/players", {"name": f"{prefix}-{uuid.uuid4().hex[:8]}"})
    assert reply.status == 201, reply.body
    _PLAYERS.append(reply.body["id"])
    return reply.body["token"]


def _create(http: Http, token: str, **options) -> dict:
    reply = http.post("/matches", options, token=token)
    assert reply.status == 201, reply.body
    return reply.body


def _listed(http: Http) -> list[str]:
    return [match["id"] for match in http.get("/matches?status=waiting&limit=200").body["matches"]]


def test_a_sniping_script_never_finds_the_private_match_and_cannot_join_it(stack, guarded) -> None:
    alice, carol, bob, mallory = (_player(guarded, who) for who in ("alice", "carol", "bob", "mallory"))
    private = _create(guarded, alice, private=True)
    public = [_create(guarded, carol)["id"] for _ in range(3)]
    wait_until(lambda: set(public) <= set(_listed(guarded)), what="the public matches listed")
    wait_until(lambda: stack.redis.hexists(keys.match_views(private["id"]), "summary"), what="projected")

    lobby = _listed(guarded)  # the script: every waiting match in the lobby ...
    assert private["id"] not in lobby
    snatched = [match_id for match_id in lobby if match_id in public
                and guarded.post(f"/matches/{match_id}/join", {}, token=mallory).status == 200]
    assert sorted(snatched) == sorted(public)  # ... joined, all but the one it never saw

    path = f"/matches/{private['id']}"  # even knowing its id: no such match, to read or to join
    for read in ("", "/events", "/replay?version=1", "/stream"):
        for token in (None, mallory):
            refused = guarded.get(f"{path}{read}", token=token)
            assert refused.status == 404 and refused.body["error"] == "NOT_FOUND", read
    wrong = ("A" if private["invite"][0] != "A" else "B") + private["invite"][1:]
    for body in ({}, {"invite": wrong}):
        refused = guarded.post(f"{path}/join", body, token=mallory)
        assert refused.status == 404 and refused.body["error"] == "NOT_FOUND"

    joined = guarded.post(f"{path}/join", {"invite": private["invite"]}, token=bob)
    assert joined.status == 200 and joined.body["status"] == "playing" and "invite" not in joined.body
    assert guarded.post(f"{path}/join", {"invite": private["invite"]}, token=mallory).body["error"] == "MATCH_FULL"
    events = guarded.get(f"{path}/events", token=bob)
    assert events.status == 200 and private["invite"].encode() not in events.raw
    exported = subprocess.run([sys.executable, "-m", "services.cli", "export", private["id"]], env=stack.env,
                              cwd=ROOT, capture_output=True, timeout=60)
    assert exported.returncode == 0 and b"match_created" in exported.stdout
    assert private["invite"].encode() not in exported.stdout


def test_a_burst_of_joins_by_one_player_stops_at_max_playing(stack, guarded) -> None:
    hosts = [_player(guarded, f"host{n}") for n in range(3)]
    waiting = [_create(guarded, hosts[n % 3])["id"] for n in range(MAX_PLAYING + 1)]
    dave = _player(guarded, "dave")
    with ThreadPoolExecutor(MAX_PLAYING + 1) as pool:  # all at once, over both gunicorn processes
        replies = list(pool.map(lambda match_id: Http(guarded_url(guarded)).post(
            f"/matches/{match_id}/join", {}, token=dave), waiting))
    assert sorted(reply.status for reply in replies) == [200] * MAX_PLAYING + [409]
    refused = next(reply for reply in replies if reply.status == 409)
    assert refused.body["error"] == "TOO_MANY_MATCHES"
    left = waiting[replies.index(refused)]
    assert [e["type"] for e in guarded.get(f"/matches/{left}/events").body["events"]] == ["match_created"]

    first = waiting[replies.index(next(reply for reply in replies if reply.status == 200))]
    assert guarded.post(f"/matches/{first}/actions", {"type": "resign"}, token=dave).status == 200
    assert guarded.post(f"/matches/{left}/join", {}, token=dave).status == 200  # the resigned match's slot


def test_joins_past_the_players_rate_are_refused_with_the_limit_named(guarded) -> None:
    erin = _player(guarded, "erin")
    tried = [guarded.post(f"/matches/nosuchmatch{n}/join", {}, token=erin).status for n in range(JOINS_PER_HOUR)]
    assert tried == [404] * JOINS_PER_HOUR  # every attempt counts, a miss too: probing has a price
    refused = guarded.post("/matches/nosuchmatch/join", {}, token=erin)
    assert refused.status == 429 and refused.body["error"] == "RATE_LIMITED" and refused.body["limit"] == "joins"
    assert int(refused.headers["retry-after"]) > 0 and refused.headers["ratelimit-limit"] == str(JOINS_PER_HOUR)


def guarded_url(http: Http) -> str:
    return f"http://{http.host}:{http.port}"
