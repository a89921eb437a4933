"""Abuse limits over the real stack: an API of its own (two gunicorn processes, limits on) on the
end-to-end Redis. A burst of registrations from one address is limited across both processes,
and another client is still served; a trusted proxy's clients count apart, nobody else's do."""
from __future__ import annotations

import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from services.client import ApiError, TrucClient
from shared import keys

from .http import Http

REGISTRATIONS = 3  # per address and hour, for this API
PROXY = "127.0.0.3"  # loopback addresses other than 127.0.0.1 are other clients (Linux routes 127/8 to lo)


@pytest.fixture(scope="module")
def limited(stack) -> Iterator[str]:
    """The base URL of an API with the limits on, beside the stack's (which runs with them off)."""
    try:
        with stack.another_api("limited-api", RATE_LIMITS="on", REGISTRATIONS_PER_HOUR=str(REGISTRATIONS),
                               TRUSTED_PROXIES=PROXY) as base:
            yield base
    finally:
        for address in ("127.0.0.1", "127.0.0.2", "127.0.0.4", *(f"198.51.100.{n}" for n in range(5))):
            stack.redis.delete(keys.limit("registrations", address))


def _name() -> str:
    return f"lim-{uuid.uuid4().hex[:10]}"


def test_a_burst_of_registrations_from_one_address_is_limited_and_another_client_is_served(stack, limited) -> None:
    names = [_name() for _ in range(REGISTRATIONS + 5)]
    with ThreadPoolExecutor(8) as pool:  # a keep-alive connection each: both gunicorn processes answer
        replies = list(pool.map(lambda name: Http(limited).post("/players", {"name": name}), names))
    served = [name for name, reply in zip(names, replies) if reply.status == 201]
    refused = [reply for reply in replies if reply.status == 429]
    assert len(served) == REGISTRATIONS and len(refused) == len(names) - REGISTRATIONS
    for reply in refused:
        assert reply.body["error"] == "RATE_LIMITED" and reply.body["limit"] == "registrations"
        assert reply.headers["ratelimit-limit"] == str(REGISTRATIONS) and reply.headers["ratelimit-remaining"] == "0"
        assert 0 < int(reply.headers["retry-after"]) <= 3600 and reply.headers["ratelimit-reset"]
    recorded = [name for name in names if stack.redis.exists(keys.player_name(name))]
    assert sorted(recorded) == sorted(served)  # nothing recorded for a refused registration

    with pytest.raises(ApiError) as raised:  # the public client says when to come back
        TrucClient(limited).register(_name())
    assert raised.value.code == "RATE_LIMITED" and raised.value.retry_after and raised.value.retry_after > 0

    assert Http(limited, source="127.0.0.2").post("/players", {"name": _name()}).status == 201
    assert Http(limited).get("/scoreboard").status == 200  # the limited address still reads


def test_a_trusted_proxy_forwards_its_clients_and_no_one_else_can(limited) -> None:
    proxy, stranger = Http(limited, source=PROXY), Http(limited, source="127.0.0.4")
    for n in range(REGISTRATIONS + 2):  # each client behind the proxy is counted as itself
        forwarded = {"X-Forwarded-For": f"198.51.100.{n % 5}"}
        assert proxy.post("/players", {"name": _name()}, headers=forwarded).status == 201
    statuses = [stranger.post("/players", {"name": _name()}, headers={"X-Forwarded-For": f"203.0.113.{n}"}).status
                for n in range(REGISTRATIONS + 2)]
    assert statuses == [201] * REGISTRATIONS + [429] * 2
