"""An impostor with an invisible tail: ``Bot`` followed by a Braille blank is refused, and never
lists in the lobby as the house bot (issue 29, item 4), on the real stack."""
from __future__ import annotations

import json
import uuid

import pytest

from shared.blank_characters import shows_nothing

from .table import register, view

BLANK_TAILS = ["\u2800", "\u3164", "\U0001d159", "\U00016fe4"]  # Braille, Hangul, notehead, Khitan


@pytest.mark.parametrize("tail", BLANK_TAILS, ids=lambda char: f"U+{ord(char):04X}")
def test_the_bots_name_with_an_invisible_tail_is_refused_and_never_lists_in_the_lobby(stack, tail):
    reply = stack.http.post("/players", {"name": f"Bot{tail}"})
    assert reply.status in (400, 409), reply.body
    assert reply.body["error"] in ("INVALID_REQUEST", "NAME_TAKEN")
    assert "token" not in reply.body
    someone = register(stack)
    created = stack.http.post("/matches", {}, token=someone.token)  # a lobby with something in it
    view(stack, created.body["id"], None, created.body["version"])
    lobby = stack.http.get("/matches?status=waiting&limit=200").body["matches"]
    assert created.body["id"] in [entry["id"] for entry in lobby]
    assert not [char for char in json.dumps(lobby, ensure_ascii=False) if shows_nothing(char)]


def test_any_name_with_an_invisible_tail_is_refused_with_the_name_rule(stack):
    name = f"alice-{uuid.uuid4().hex[:8]}"
    assert stack.http.post("/players", {"name": name}).status == 201
    reply = stack.http.post("/players", {"name": f"{name}\u2800"})
    assert reply.status == 400 and reply.body["error"] == "INVALID_REQUEST", reply.body
    assert "invisible" in reply.body["fields"]["name"][0]
