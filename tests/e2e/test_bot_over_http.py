"""A match against the built-in bot, which plays through the public API like any client.

The bot lists no matches: its player stream tells it where it is awaited.
"""
import random
import time

import orjson

from shared import keys
from shared.bot import BOT_PLAYER_ID

from .table import Seated, register, view


def play_against_the_bot(stack, me: Seated, created: dict) -> dict:
    """Random moves of seat A until the match is over, waiting for the bot's; the final view."""
    match_id, rng = created["id"], random.Random(1)
    current = view(stack, match_id, me.token, created["version"])
    for _ in range(3000):
        if current["status"] == "finished":
            break
        rnd = current["round"]
        pending = rnd["pending"]
        my_move = (pending["by"] != "A") if pending else rnd["turn"] == "A"
        if my_move:
            choices = [a for a in current["legal_actions"] if a["type"] not in ("fold", "propose_redeal", "resign")]
            acted = stack.http.post(f"/matches/{match_id}/actions", rng.choice(choices), token=me.token,
                                    headers={"If-Match": f'"{current["version"]}"'})
            assert acted.status == 200, acted.body
            current = view(stack, match_id, me.token, acted.body["version"])
        else:  # the bot's move: wait for it without polling faster than the API's long wait
            current = view(stack, match_id, me.token, current["version"] + 1)
    return current


def test_a_match_against_the_bot_plays_to_the_end(stack):
    me = register(stack, "human")
    created = stack.http.post("/matches", {"opponent": "bot"}, token=me.token)
    assert created.status == 201, created.body
    assert created.body["players"]["B"]["name"] == "Bot" and created.body["status"] == "playing"
    current = play_against_the_bot(stack, me, created.body)
    assert current["status"] == "finished" and current["winner"] in ("A", "B")
    bot_matches = stack.http.get("/players/bot/matches?status=finished").body["matches"]
    assert created.body["id"] in [m["id"] for m in bot_matches]


def test_the_bot_is_told_where_it_is_awaited_by_its_player_stream(stack):
    me = register(stack, "dealer")
    created = stack.http.post("/matches", {"opponent": "bot", "first_dealer": "A"}, token=me.token)  # the bot leads
    assert created.status == 201, created.body
    assert play_against_the_bot(stack, me, created.body)["status"] == "finished"
    # The views are written before the players' notices (one pipeline later): give the last one a moment.
    deadline, mine = time.monotonic() + 10, []
    while time.monotonic() < deadline and not (mine and mine[-1][0] == b"match"):
        feed = stack.redis.xrange(keys.player_feed(BOT_PLAYER_ID))
        told = [(fields[b"type"], orjson.loads(fields[b"data"])) for _, fields in feed]
        mine = [(kind, notice) for kind, notice in told if notice["match_id"] == created.body["id"]]
        time.sleep(0.05)
    assert mine[0] == (b"turn", {"match_id": created.body["id"], "version": 3, "deadline": mine[0][1]["deadline"]})
    assert mine[-1] == (b"match", {"match_id": created.body["id"], "status": "finished",
                                   "version": mine[-1][1]["version"]})
    # Its stream is held open, on no connection of its own: the API processes' subscribers (one each) wake it.
    assert 1 <= [client.get("name") for client in stack.redis.client_list()].count("truc-fanout") <= 2


def test_a_player_lists_their_own_matches(stack):
    me = register(stack, "lister")
    created = stack.http.post("/matches", {}, token=me.token).body
    view(stack, created["id"], me.token, created["version"])
    waiting = stack.http.get(f"/players/{me.id}/matches?status=waiting").body["matches"]
    assert [m["id"] for m in waiting] == [created["id"]]
    assert stack.http.get(f"/players/{me.id}/matches?status=bogus").status == 400
    assert stack.http.get("/players/nobody/matches").status == 404
