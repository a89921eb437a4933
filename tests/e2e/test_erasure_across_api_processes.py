"""One erasure empties what every API process keeps of the name.

An API process keeps the lobby lines of archived matches it listed (folded from the archive,
named as the directory named the players then) and the tokens it authenticated. Beside the
stack's API runs another, a single process on the same Redis; both have listed a player's
archived match and taken its token. The player is erased through the stack's API: within
moments the other process serves the placeholder in its lists, not the line it kept (which it
would serve for minutes had it not heard of the erasure), and both refuse the token.
"""
from __future__ import annotations

import uuid

from shared import keys
from tests.waiting import wait_until

from .http import Http
from .leftovers import archive_now, read_until_unnamed
from .table import played, register, registered


def _listed(http: Http, player_id: str) -> bytes:
    """The player's finished matches, as ``http``'s process lists them."""
    reply = http.get(f"/players/{player_id}/matches?status=finished&limit=100")
    assert reply.status == 200, reply.body
    return reply.raw


def test_an_erasure_through_one_api_process_drops_the_name_another_had_kept(stack):
    name = f"Zk{uuid.uuid4().hex[:10]}"
    player, opponent = registered(stack, name), register(stack, "o")
    finished = played(stack, player, opponent)
    archive_now(stack, finished)

    with stack.another_api("kept-names-api", API_WORKERS="1") as base:
        other = Http(base)
        for http in (stack.http, other):  # each lists the archived match (and keeps its line), takes the token
            assert finished.encode() in _listed(http, player.id) and name.encode() in _listed(http, player.id)
            assert http.post("/stream-tickets", token=player.token).status == 201

        assert stack.http.request("DELETE", "/players/me", token=player.token).status == 204

        placeholder = stack.redis.hget(keys.player(player.id), "name")
        for http in (other, stack.http):
            shown = read_until_unnamed(http, [finished], player.id, name)
            assert name.encode() not in shown
            assert placeholder in _listed(http, player.id)
        wait_until(lambda: all(http.post("/stream-tickets", token=player.token).status == 401
                               for http in (stack.http, other)), 5, "the token refused by both API processes")
