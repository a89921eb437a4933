"""Helpers that seat players and play matches over HTTP, as any client would."""
from __future__ import annotations

import json
import random
import uuid
from dataclasses import dataclass

from shared import keys

from .conftest import Stack


@dataclass
class Seated:
    id: str
    name: str
    token: str


def register(stack: Stack, prefix: str = "p") -> Seated:
    name = f"{prefix}-{uuid.uuid4().hex[:12]}"
    reply = stack.http.post("/players", {"name": name})
    assert reply.status == 201, reply.body
    return Seated(reply.body["id"], name, reply.body["token"])


def new_match(stack: Stack, **options) -> tuple[str, Seated, Seated]:
    """A match with both seats filled: (id, A, B)."""
    a, b = register(stack, "a"), register(stack, "b")
    created = stack.http.post("/matches", options, token=a.token)
    assert created.status == 201, created.body
    match_id = created.body["id"]
    joined = stack.http.post(f"/matches/{match_id}/join", {"accept_custom": True}, token=b.token)
    assert joined.status == 200, joined.body
    return match_id, a, b


def stream_version(stack: Stack, match_id: str) -> int:
    return stack.redis.xlen(keys.match_events(match_id))


def view(stack: Stack, match_id: str, token: str | None, min_version: int = 0) -> dict:
    reply = stack.http.get(f"/matches/{match_id}?min_version={min_version}&wait=10", token=token)
    assert reply.status == 200, reply.body
    assert reply.body["version"] >= min_version, "the projector did not catch up in 10 s"
    return reply.body


def hidden_cards_shown(shown: dict, hidden: set[str]) -> list[str]:
    """Cards of ``hidden`` that appear anywhere in ``shown`` (the previous round's table aside)."""
    text = json.dumps({k: v for k, v in shown.items() if k != "last_round"})
    return [card for card in hidden if f'"{card}"' in text]


def play_to_the_end(stack: Stack, match_id: str, seats: dict[str, Seated], rng: random.Random) -> dict:
    """Random legal play through the API, checking hidden information at every step."""
    version = stream_version(stack, match_id)  # every view below is read at least this far
    for _ in range(2000):
        views = {seat: view(stack, match_id, p.token, version) for seat, p in seats.items()}
        spectator = view(stack, match_id, None, version)
        if spectator["status"] == "finished":
            return spectator
        for seat, other in (("A", "B"), ("B", "A")):
            hand = set(views[seat]["round"]["hand"])
            assert not hidden_cards_shown(views[other], hand), "a seat saw the other's unplayed cards"
            assert not hidden_cards_shown(spectator, hand), "a spectator saw unplayed cards"
        choices = [(seat, action) for seat, v in views.items() for action in v["legal_actions"]
                   if action["type"] != "resign"]  # played to a winner on score: resigning is tested on its own
        weights = [0.03 if action["type"] in ("fold", "remainder") else 1.0 for _, action in choices]
        seat, action = rng.choices(choices, weights)[0]
        acted = stack.http.post(
            f"/matches/{match_id}/actions", action, token=seats[seat].token,
            headers={"If-Match": f'"{views[seat]["version"]}"'},
        )
        assert acted.status == 200, (action, acted.body)
        assert_redacted(acted.body["events"], seat)
        version = acted.body["version"]
    raise AssertionError("the match did not end in 2000 actions")


def assert_redacted(events: list[dict], seat: str) -> None:
    """Dealt cards of the other seat, and the stock, are null in what ``seat`` is sent."""
    if any(event["type"] == "match_won" for event in events):
        return  # a finished match shows everything
    other = "B" if seat == "A" else "A"
    for event in events:
        if event["type"] in ("round_dealt", "redeal_accepted"):
            assert event["data"]["hands"][other] == [None, None, None]
            assert all(card is not None for card in event["data"]["hands"][seat])
        if event["type"] == "round_dealt":
            assert set(event["data"]["stock"]) == {None}


def registered(stack: Stack, name: str, password: str = "a long password") -> Seated:
    """A player registered under ``name`` (with a password, so it may open other devices' sessions)."""
    reply = stack.http.post("/players", {"name": name, "password": password})
    assert reply.status == 201, reply.body
    return Seated(reply.body["id"], name, reply.body["token"])


def joined(stack: Stack, creator: Seated, opponent: Seated) -> str:
    """A match ``creator`` created and ``opponent`` joined: playing, its first round dealt."""
    match_id = stack.http.post("/matches", {}, token=creator.token).body["id"]
    assert stack.http.post(f"/matches/{match_id}/join", {}, token=opponent.token).status == 200
    return match_id


def played(stack: Stack, creator: Seated, opponent: Seated, seed: int = 5) -> str:
    """A match of ``creator`` and ``opponent`` played to its end."""
    match_id = joined(stack, creator, opponent)
    play_to_the_end(stack, match_id, {"A": creator, "B": opponent}, random.Random(seed))
    return match_id
