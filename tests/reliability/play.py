"""Players and matches over HTTP, as any client makes them."""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass
from typing import Any

from tests.e2e.http import Http, Reply

RARE = ("fold", "remainder")  # rarely chosen, so that matches run several rounds
NEVER = ("resign",)  # never chosen: the matches are played out


@dataclass(frozen=True)
class Player:
    id: str
    name: str
    token: str


def register(http: Http, prefix: str = "p") -> Player:
    """A newly registered player with a unique name."""
    name = f"{prefix}-{uuid.uuid4().hex[:12]}"
    reply = http.post("/players", {"name": name})
    assert reply.status == 201, reply.body
    return Player(reply.body["id"], name, reply.body["token"])


def new_match(http: Http, a: Player, b: Player | None = None, **options: Any) -> str:
    """A match created by ``a``; ``b`` joins it (none: ``options`` may seat the bot)."""
    created = http.post("/matches", options, token=a.token)
    assert created.status == 201, created.body
    match_id = created.body["id"]
    if b is not None:
        joined = http.post(f"/matches/{match_id}/join", {"accept_custom": True}, token=b.token)
        assert joined.status == 200, joined.body
    return match_id


def view(http: Http, match_id: str, token: str | None, min_version: int = 0, wait: float = 5) -> dict[str, Any]:
    """The match as ``token``'s player sees it, waiting for ``min_version`` to be projected."""
    reply = http.get(f"/matches/{match_id}?min_version={min_version}&wait={wait}", token=token)
    assert reply.status == 200, reply.body
    return reply.body


def pick_action(views: dict[str, dict[str, Any]], rng: random.Random) -> tuple[str, dict[str, Any]] | None:
    """A random legal action of either seat; None if neither may act."""
    choices = [(seat, action) for seat, seen in views.items() for action in seen["legal_actions"]
               if action["type"] not in NEVER]
    if not choices:
        return None
    weights = [0.03 if action["type"] in RARE else 1.0 for _, action in choices]
    return rng.choices(choices, weights)[0]


def act(http: Http, match_id: str, player: Player, action: dict[str, Any], if_match: int | None = None,
        key: str | None = None) -> Reply:
    """POST one action, with ``If-Match`` and ``Idempotency-Key`` when given."""
    headers = {}
    if if_match is not None:
        headers["If-Match"] = f'"{if_match}"'
    if key is not None:
        headers["Idempotency-Key"] = key
    return http.post(f"/matches/{match_id}/actions", action, token=player.token, headers=headers)
