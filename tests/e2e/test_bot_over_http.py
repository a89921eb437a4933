"""A match against the built-in bot, which plays through the public API like any client."""
import random

from .table import register, view


def test_a_match_against_the_bot_plays_to_the_end(stack):
    me = register(stack, "human")
    created = stack.http.post("/matches", {"opponent": "bot"}, token=me.token)
    assert created.status == 201, created.body
    assert created.body["players"]["B"]["name"] == "Bot" and created.body["status"] == "playing"
    match_id, rng = created.body["id"], random.Random(1)
    current = view(stack, match_id, me.token, created.body["version"])
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
    assert current["status"] == "finished" and current["winner"] in ("A", "B")
    bot_matches = stack.http.get("/players/bot/matches?status=finished").body["matches"]
    assert match_id in [m["id"] for m in bot_matches]


def test_a_player_lists_their_own_matches(stack):
    me = register(stack, "lister")
    created = stack.http.post("/matches", {}, token=me.token).body
    view(stack, created["id"], me.token, created["version"])
    waiting = stack.http.get(f"/players/{me.id}/matches?status=waiting").body["matches"]
    assert [m["id"] for m in waiting] == [created["id"]]
    assert stack.http.get(f"/players/{me.id}/matches?status=bogus").status == 400
    assert stack.http.get("/players/nobody/matches").status == 404
