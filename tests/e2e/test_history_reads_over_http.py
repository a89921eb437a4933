"""Reads of a match's history over the real stack (gunicorn's gevent workers, a real redis-server).

The longest match R33 allows (400 void rounds, some 10,000 events) replays at any version the
view a plain fold from version 0 gives, and ``/health`` is answered while its first, cold folds
run on the workers' thread pools. A client address past its share of replays or event reads gets
429 ``RATE_LIMITED`` from either API process, and another address is still served. A stream
position past 2^63 - 1 is 400 ``INVALID_REQUEST``, where it was 503 ``STORE_UNAVAILABLE`` and a
warning in the log per request.
"""
from __future__ import annotations

import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import orjson
import pytest

from shared import keys
from shared.codec import encode
from shared.eventstore import RedisEventStore
from shared.fold import FoldedMatch, fold
from shared.rules import replay_view
from shared.rules.void_rounds import void_match

from .http import Http

READS = 3  # replays, and event reads, per address and minute for the limited API
TOO_FAR = 2**63


@pytest.fixture(scope="module")
def long_match(stack) -> tuple[str, list]:
    """The id and stored events of a match of 400 void rounds, written into the stack's store."""
    match_id = f"long-{uuid.uuid4().hex[:10]}"
    events = void_match(match_id, rounds=400)
    store = RedisEventStore(stack.redis)
    for start in range(0, len(events), 500):
        store.append(match_id, [encode(event) for event in events[start:start + 500]], start)
    return match_id, store.read(match_id)


@pytest.fixture(scope="module")
def limited(stack) -> Iterator[str]:
    """The base URL of an API with the history limits on (READS a minute), beside the stack's."""
    try:
        with stack.another_api("history-limited-api", RATE_LIMITS="on", REPLAYS_PER_MINUTE=str(READS),
                               EVENT_READS_PER_MINUTE=str(READS)) as base:
            yield base
    finally:
        for limit in ("replays", "events"):
            for address in ("127.0.0.1", "127.0.0.2"):
                stack.redis.delete(keys.limit(limit, address))


def test_the_longest_match_replays_as_a_plain_fold_shows_while_health_answers(stack, long_match) -> None:
    match_id, everything = long_match
    now = fold(FoldedMatch(match_id), everything).state
    versions = [len(everything), len(everything) - 1, 10, 4_097, 64, 1]
    base = f"http://127.0.0.1:{stack.http.port}"
    with ThreadPoolExecutor(4) as replaying, ThreadPoolExecutor(1) as asking:  # a connection per thread
        asked = [replaying.submit(Http(base).get, f"/matches/{match_id}/replay?version={v}") for v in versions * 2]
        health = [asking.submit(stack.http.get, "/health") for _ in range(4)]  # while both processes fold it cold
        assert all(answer.result(timeout=10).status == 200 for answer in health)
        replies = [answer.result() for answer in asked]
    for version, reply in zip(versions * 2, replies):
        assert reply.status == 200, reply.body
        then = fold(FoldedMatch(match_id), everything[:version]).state
        expected = orjson.loads(orjson.dumps({"id": match_id, "version": version, **replay_view(then, None, now)}))
        assert reply.body == expected


@pytest.mark.parametrize("limit, path", [("replays", "/replay?version=3"), ("events", "/events?after=3")])
def test_history_reads_past_an_addresss_share_are_limited(stack, long_match, limited, limit: str, path: str) -> None:
    match_id, _ = long_match
    with ThreadPoolExecutor(4) as pool:  # a keep-alive connection each: both gunicorn processes answer
        replies = list(pool.map(lambda _: Http(limited).get(f"/matches/{match_id}{path}"), range(READS + 3)))
    assert sorted(reply.status for reply in replies) == [200] * READS + [429] * 3
    for reply in replies:
        if reply.status == 429:
            assert reply.body["error"] == "RATE_LIMITED" and reply.body["limit"] == limit
            assert reply.headers["ratelimit-limit"] == str(READS) and reply.headers["ratelimit-remaining"] == "0"
            assert 0 < int(reply.headers["retry-after"]) <= 60
    assert Http(limited, source="127.0.0.2").get(f"/matches/{match_id}{path}").status == 200
    assert Http(limited).get("/scoreboard").status == 200  # the limited address still reads the rest
    assert stack.http.get(f"/matches/{match_id}{path}").status == 200  # RATE_LIMITS=off: the stack's API


def test_a_stream_position_past_the_last_one_is_a_bad_request_not_a_store_failure(stack, long_match) -> None:
    match_id, _ = long_match
    log = stack.logs / "api.log"
    logged = log.read_text().count("STORE_UNAVAILABLE")
    for path, headers in ((f"/matches/{match_id}/events?after={2**64 - 1}", {}),
                          (f"/matches/{match_id}/events?after={TOO_FAR}", {}),
                          (f"/matches/{match_id}/replay?version={TOO_FAR}", {}),
                          (f"/matches/{match_id}?min_version={TOO_FAR}", {}),
                          (f"/matches/{match_id}/stream", {"Last-Event-ID": str(TOO_FAR)})):
        reply = stack.http.get(path, headers=headers)
        assert reply.status == 400 and reply.body["error"] == "INVALID_REQUEST", (path, reply.body)
    assert stack.http.get(f"/matches/{match_id}/events?after={TOO_FAR - 1}").body == {"events": []}
    assert log.read_text().count("STORE_UNAVAILABLE") == logged
