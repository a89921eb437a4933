"""Hostile requests: missing, forged and other players' tokens, foreign matches, huge and deep bodies.

Each must be refused with its documented code - never a 500 - and record nothing: the
match's stream, the players and the matches stay as they were.
"""

from __future__ import annotations

import pytest

from shared.eventstore import RedisEventStore
from tests.e2e.http import Reply
from tests.reliability.play import Player, act, new_match, register, view
from tests.reliability.stack import Stack

FORGED = ["forged", "x" * 64, "Bearer", "' OR 1=1 --", "../../etc/passwd", "\u00e9t\u00e9", "t" * 4000]
BAD_HEADERS = ["Basic eA==", "Bearer", "Bearer ", "bearer", "Token abc", "\t", "Bearer a b c"]


@pytest.fixture(scope="module")
def seated(shared_stack: Stack) -> tuple[str, Player, Player, Player]:
    """A match on its first trick, its two players (A leads), and a stranger."""
    a, b, stranger = register(shared_stack.http, "sec-a"), register(shared_stack.http, "sec-b"), register(
        shared_stack.http, "sec-c")
    return new_match(shared_stack.http, a, b, first_dealer="B"), a, b, stranger


def writes(match_id: str) -> list[tuple[str, dict]]:
    """Every request that acts for a player, with a body it would accept."""
    return [("/matches", {}), (f"/matches/{match_id}/join", {}), (f"/matches/{match_id}/actions", {"type": "fold"})]


def footprint(stack: Stack, match_id: str) -> tuple[int, int]:
    """What a refused request must not change: the match's stream, and how many matches exist."""
    store = RedisEventStore(stack.client())
    return store.version(match_id), sum(1 for _ in store.match_ids())


def refused(reply: Reply, status: int, code: str) -> bool:
    return reply.status == status and isinstance(reply.body, dict) and reply.body.get("error") == code


def test_missing_forged_and_malformed_tokens_are_401_and_record_nothing(
    shared_stack: Stack, seated: tuple, figures: dict,
) -> None:
    stack, (match_id, *_) = shared_stack, seated
    before, tried, wrong = footprint(stack, match_id), 0, []
    for path, body in writes(match_id):
        attempts = [{}] + [{"Authorization": f"Bearer {token}"} for token in FORGED]
        attempts += [{"Authorization": header} for header in BAD_HEADERS]
        for headers in attempts:
            reply = stack.http.post(path, body, headers=headers)
            tried += 1
            if not refused(reply, 401, "UNAUTHENTICATED"):
                wrong.append((path, headers, reply.status, reply.body))
    for token in FORGED:  # a forged token on a read is 401 too, not a spectator's view
        for path in (f"/matches/{match_id}", f"/matches/{match_id}/events", f"/matches/{match_id}/stream?token=x"):
            reply = stack.http.get(path, headers={"Authorization": f"Bearer {token}"})
            tried += 1
            if not refused(reply, 401, "UNAUTHENTICATED"):
                wrong.append((path, token, reply.status, reply.body))
    assert wrong == []
    assert footprint(stack, match_id) == before
    figures.update(token_attempts=tried, accepted=0)


def test_another_players_token_acts_only_as_that_player(shared_stack: Stack, seated: tuple, figures: dict) -> None:
    stack, (match_id, a, b, stranger) = shared_stack, seated
    hand_of_a = view(stack.http, match_id, a.token, 3)["round"]["hand"]
    before = footprint(stack, match_id)
    assert refused(act(stack.http, match_id, stranger, {"type": "fold"}), 403, "NOT_A_PLAYER")
    assert refused(act(stack.http, match_id, stranger, {"type": "play", "card": hand_of_a[0]}), 403, "NOT_A_PLAYER")
    # B cannot play A's card: its token makes it B, whose turn it is not.
    assert act(stack.http, match_id, b, {"type": "play", "card": hand_of_a[0]}).status == 409
    assert refused(stack.http.post(f"/matches/{match_id}/join", token=stranger.token), 409, "MATCH_FULL")
    seen_by_stranger = view(stack.http, match_id, stranger.token, 3)
    assert seen_by_stranger["you"] is None and "hand" not in seen_by_stranger["round"]
    assert seen_by_stranger["legal_actions"] == []
    assert footprint(stack, match_id) == before
    figures.update(foreign_attempts=4, accepted=0)


def deep(depth: int) -> bytes:
    return b'{"type": "fold", "x": ' + b"[" * depth + b"]" * depth + b"}"


HUGE_AND_DEEP = {
    "a body over 64 KiB": (b'{"name": "' + b"x" * 70_000 + b'"}', 413, "BODY_TOO_LARGE"),
    "a body of a megabyte": (b"[" + b"1," * 500_000 + b"1]", 413, "BODY_TOO_LARGE"),
    "arrays nested 100 000 deep": (b"[" * 100_000 + b"]" * 100_000, 413, "BODY_TOO_LARGE"),
    "arrays nested 30 000 deep": (b"[" * 30_000 + b"]" * 30_000, 400, "INVALID_REQUEST"),
    "a field nested 20 000 deep": (deep(20_000), 400, "INVALID_REQUEST"),
    "objects nested 10 000 deep": (b'{"a":' * 10_000 + b"1" + b"}" * 10_000, 400, "INVALID_REQUEST"),
    "a string of 60 000 characters": (b'{"type": "' + b"x" * 60_000 + b'"}', 400, "INVALID_REQUEST"),
    "bytes that are not UTF-8": (b'{"type": "\xff\xfe"}', 400, "INVALID_REQUEST"),
    "a JSON number too large": (b'{"start_scores": [1e999999, 0]}', 400, "INVALID_REQUEST"),
}


@pytest.mark.parametrize("what", sorted(HUGE_AND_DEEP))
def test_oversized_and_deeply_nested_bodies_are_refused_without_a_500(
    shared_stack: Stack, seated: tuple, what: str,
) -> None:
    stack, (match_id, a, *_) = shared_stack, seated
    raw, status, code = HUGE_AND_DEEP[what]
    before = footprint(stack, match_id)
    for path in ("/players", "/matches", f"/matches/{match_id}/join", f"/matches/{match_id}/actions"):
        reply = stack.http.post(path, raw=raw, token=a.token)
        if path.endswith("/join"):  # join reads no body: it is decided by the seats
            assert reply.status in (status, 409), (path, reply.status, reply.body)
        else:
            assert refused(reply, status, code), (path, reply.status, reply.body)
    assert footprint(stack, match_id) == before
