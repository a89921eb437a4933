"""The lobby of the browser table, in real headless Chromium: open matches to join, the player's
matches in play to resume and their finished ones to replay, and a new match on the terms chosen."""
from __future__ import annotations

import pytest

from tests.waiting import wait_until

from .conftest import Stack
from .table import joined, register
from .test_browser_replay import finished_match
from .test_browser_table import browser, open_page, register_in, sync_api  # noqa: F401 (fixtures)


def signed_in(open_page, player, path: str = "/"):  # noqa: F811
    page = open_page(path)
    page.evaluate("p => localStorage.setItem('truc.player', JSON.stringify(p))",
                  {"id": player.id, "name": player.name, "token": player.token})
    page.goto(page.url)
    sync_api.expect(page.locator("#lobby")).to_be_visible()
    return page


@pytest.mark.timeout(120)
def test_a_match_in_play_is_resumed_from_the_lobby(open_page, stack: Stack):  # noqa: F811
    alice = register(stack, "alice")
    created = stack.http.post("/matches", {"opponent": "bot"}, token=alice.token)
    assert created.status == 201, created.body
    page = signed_in(open_page, alice)
    resume = page.locator(f'#playing-matches button[data-match="{created.body["id"]}"]')
    sync_api.expect(resume).to_have_text("Resume")
    resume.click()
    sync_api.expect(page.locator("#match")).to_have_attribute("data-status", "playing")
    assert f"match={created.body['id']}" in page.url
    sync_api.expect(page.locator("#hand button")).to_have_count(3)


@pytest.mark.timeout(120)
def test_an_open_match_is_joined_from_the_lobby_on_its_terms(open_page, stack: Stack):  # noqa: F811
    alice = open_page()
    register_in(alice, "alice")
    alice.locator("#term-seconds").select_option("30")
    alice.locator("#term-target").select_option("6")
    alice.locator("#term-ladder").select_option("even")
    created = stack.http.post("/matches", {"rules": {"turn_seconds": 30}}, token=register(stack, "carol").token)
    assert created.status == 201, created.body
    bob = open_page()
    register_in(bob, "bob")
    join = bob.locator(f'#open-matches button[data-match="{created.body["id"]}"]')
    sync_api.expect(join).to_have_text("Join")
    sync_api.expect(bob.locator(f'#open-matches li[data-match="{created.body["id"]}"]')).to_contain_text("30 s a move")
    join.click()
    sync_api.expect(bob.locator("#invite-clock")).to_have_text("Each turn has 30 s.")  # it asks first
    bob.get_by_role("button", name="Join the match").click()
    sync_api.expect(bob.locator("#match")).to_have_attribute("data-status", "playing")

    alice.get_by_role("button", name="Play against the bot").click()  # on the terms chosen
    sync_api.expect(alice.locator("#match")).to_have_attribute("data-status", "playing")
    match_id = alice.url.split("match=")[1]
    rules = stack.http.get(f"/matches/{match_id}").body["rules"]
    assert (rules["turn_seconds"], rules["target"], rules["raise_ladder"]) == (30, 6, "even")


@pytest.mark.timeout(180)
def test_a_finished_match_is_replayed_from_the_lobby(open_page, stack: Stack):  # noqa: F811
    match_id, alice = finished_match(stack)
    page = signed_in(open_page, alice)
    page.locator(f'#finished-matches button[data-match="{match_id}"]').click()
    sync_api.expect(page.locator("#match")).to_have_attribute("data-status", "finished")
    sync_api.expect(page.locator("#replay-position")).to_contain_text("Move")


def _listed(stack: Stack, path: str, token: str | None = None) -> list[str]:
    return [line["id"] for line in stack.http.get(path, token=token).body["matches"]]


@pytest.mark.timeout(120)
def test_the_lobbys_lists_page_past_twenty_with_show_more(open_page, stack: Stack):  # noqa: F811
    alice, bob, carol = (register(stack, name) for name in ("alice", "bob", "carol"))
    playing = [joined(stack, alice, bob) for _ in range(23)]  # more than a page of alice's matches in play
    waiting = [stack.http.post("/matches", {}, token=carol.token).body["id"] for _ in range(22)]
    wait_until(lambda: len(_listed(stack, "/players/me/matches?status=playing&limit=50", alice.token)) == 23,
               timeout=20, what="alice's 23 matches to be projected")
    try:
        page = signed_in(open_page, alice)
        rows = page.locator("#playing-matches li[data-match]")
        sync_api.expect(rows).to_have_count(20)  # the newest page first
        page.locator("#playing-matches .more button").click()
        sync_api.expect(rows).to_have_count(23)
        shown = rows.evaluate_all("rows => rows.map(row => row.dataset.match)")
        assert shown == playing[::-1]  # each once, newest first
        sync_api.expect(page.locator("#playing-matches .more")).to_have_count(0)  # nothing more to show
        first_new = page.locator(f'#playing-matches button[data-match="{playing[2]}"]')
        sync_api.expect(first_new).to_be_focused()  # the keyboard goes on from the first match shown

        opened = page.locator("#open-matches li[data-match]")
        sync_api.expect(opened).to_have_count(20)
        page.locator("#open-matches .more button").click()
        sync_api.expect(page.locator(f'#open-matches li[data-match="{waiting[0]}"]')).to_have_count(1)  # carol's oldest
    finally:
        for match_id in waiting:  # the lobby is the whole stack's: the other tests see their own matches
            stack.http.post(f"/matches/{match_id}/actions", {"type": "cancel"}, token=carol.token)


@pytest.mark.timeout(120)
def test_the_bot_plays_at_the_level_chosen_and_the_view_and_the_lobby_say_it(open_page, stack: Stack):  # noqa: F811
    alice = register(stack, "alice")
    page = signed_in(open_page, alice)
    sync_api.expect(page.locator("#bot-level")).to_have_value("medium")  # the default
    page.get_by_label("Bot level").select_option("hard")
    page.get_by_role("button", name="Play against the bot").click()
    sync_api.expect(page.locator("#match")).to_have_attribute("data-status", "playing")
    sync_api.expect(page.locator("#opponent-level")).to_have_text("Bot level: hard")
    match_id = page.url.split("match=")[1]
    assert stack.http.get(f"/matches/{match_id}").body["bot_level"] == "hard"

    lobby = signed_in(open_page, alice)
    line = lobby.locator(f'#playing-matches li[data-match="{match_id}"]')
    sync_api.expect(line).to_contain_text("Bot level: hard")
