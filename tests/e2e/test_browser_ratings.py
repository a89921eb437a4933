"""The ratings in real headless Chromium: a "Play a rated match" button that pairs two browsers,
the leaderboard page and a player's rating chart, on a desktop and a phone, left to right and in
Urdu (right to left); screenshots into docs/screenshots/ with UPDATE_SCREENSHOTS=1.

The leaderboard needs settled ratings (RD under 110: some 20 rated matches each); those are
recorded into the ratings read model directly (as the projector records them) for players
registered over HTTP, so the pages draw a season, and taken out again after (``truc ratings
verify`` would rightly find them in no stream); the e2e ratings test plays rated matches for real.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from shared import keys
from shared.ratings.rating_fold import DAY_MS, RatedResult
from shared.readmodels import ReadModels

from .http import Http
from .table import register
from .test_browser_table import browser, open_page, register_in, save_screenshot, sync_api  # noqa: F401

PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def season(stack):
    """Six registered players and a season of rated results among them."""
    players = [register(stack, prefix) for prefix in ("Aino", "Joost", "Gurpreet", "Joy", "Imran", "Marta")]
    read_models = ReadModels(stack.redis)
    generation = read_models.generation()
    ratings = read_models.ratings(generation)
    rng, start = random.Random(6), 1_780_000_000_000
    strength = {p.id: rng.gauss(0, 1) for p in players}
    for index in range(150):
        a, b = rng.sample(players, 2)
        a_won = rng.random() < 1 / (1 + 10 ** (strength[b.id] - strength[a.id]))
        ratings.record(RatedResult(start + index * DAY_MS // 3, f"season{index:03d}", a.id, b.id, a_won))
    yield players
    stack.redis.delete(*(keys.player_ratings(p.id, generation) for p in players))
    stack.redis.zrem(keys.leaderboard(generation), *(p.id for p in players))


@pytest.mark.timeout(120)
def test_two_browsers_that_press_play_are_paired_into_one_rated_match(open_page):  # noqa: F811
    alice, bob = open_page(), open_page()
    register_in(alice, "alice")
    register_in(bob, "bob")
    alice.get_by_role("button", name="Play a rated match").click()
    sync_api.expect(alice.locator("#message")).to_contain_text("Looking for an opponent")
    bob.get_by_role("button", name="Play a rated match").click()
    for page in (alice, bob):
        sync_api.expect(page.locator("#match")).to_have_attribute("data-status", "playing")
    assert alice.evaluate("app.matchId") == bob.evaluate("app.matchId")
    assert alice.evaluate("app.view.rated") is True
    alice.get_by_role("button", name="Resign", exact=True).click()  # before round 1 ends: aborted, never rated
    alice.get_by_role("button", name="Yes, resign").click()  # (no clock left to finish it, rated, later)
    sync_api.expect(alice.locator("#match")).to_have_attribute("data-status", "finished")


@pytest.mark.timeout(120)
@pytest.mark.parametrize("lang", ["en", "ur"])
@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_the_leaderboard_and_a_rating_chart(open_page, season, lang: str, device: str, tmp_path: Path):  # noqa: F811
    size = PHONE if device == "phone" else {"width": 1100, "height": 900}
    board = open_page(f"/ratings?lang={lang}", **size)
    rows = board.locator("#board-rows li")
    sync_api.expect(rows.first).to_be_visible()
    assert rows.count() >= 3
    values = [int(text.split()[0]) for text in board.locator("#board-rows .figures").all_text_contents()]
    assert values == sorted(values, reverse=True)
    assert board.evaluate("document.documentElement.dir") == ("rtl" if lang == "ur" else "ltr")
    suffix = "" if lang == "en" else f".{lang}"
    save_screenshot(board, tmp_path, f"leaderboard.{device}{suffix}.png")

    board.locator("#board-rows a").first.click()
    chart = board.locator("#chart polyline.line")
    sync_api.expect(chart).to_have_count(1)
    points = chart.get_attribute("points").split()
    assert len(points) >= 20 and len(board.locator("#chart circle").all()) == len(points)
    assert board.locator("#chart").get_attribute("aria-label")
    save_screenshot(board, tmp_path, f"rating-chart.{device}{suffix}.png")


@pytest.mark.timeout(120)
def test_a_seek_that_is_dropped_or_expires_is_said_on_the_page(browser, stack):  # noqa: F811
    """Nobody is left looking unsaid: a seek dropped because its player sat down in MAX_PLAYING
    matches since seeking, then one that expired, each say so where the page said it was looking
    (an API of its own: the cap on, one match at once, seeks of 5 s)."""
    settings = {"RATE_LIMITS": "on", "REGISTRATIONS_PER_HOUR": "1000", "MAX_PLAYING": "1", "SEEK_SECONDS": "5"}
    with stack.another_api("seeks-api", **settings) as base:
        context = browser.new_context(viewport={"width": 1100, "height": 900})
        pairer = None
        try:
            page = context.new_page()
            page.set_default_timeout(10_000)
            page.goto(base)
            register_in(page, "alice")
            play, message = page.get_by_role("button", name="Play a rated match"), page.locator("#message")
            play.click()
            sync_api.expect(message).to_contain_text("Looking for an opponent")
            http, token = Http(base), page.evaluate("app.player.token")
            waiting = http.post("/matches", {}, token=token)  # alice sits down in her one match meanwhile
            assert waiting.status == 201, waiting.body
            ben = register(stack, "ben")  # on the stack's API: one Redis for both
            bens = http.post("/seeks", {"rated": True}, token=ben.token)  # paired with alice's: refused
            assert bens.status == 201, bens.body
            sync_api.expect(message).to_contain_text("Your seek was dropped", timeout=15_000)  # via the projector
            assert page.evaluate("app.matchId") is None

            assert http.request("DELETE", f"/seeks/{bens.body['id']}", token=ben.token).status == 204
            cancelled = http.post(f"/matches/{waiting.body['id']}/actions", {"type": "cancel"}, token=token)
            assert cancelled.status == 200, cancelled.body
            play.click()
            sync_api.expect(message).to_contain_text("Looking for an opponent")
            pairer = stack.start_pairer()  # its passes find the seek expired
            sync_api.expect(message).to_contain_text("your seek has expired", timeout=20_000)
        finally:
            context.close()
            if pairer is not None:
                pairer.terminate()
                pairer.wait(10)
                stack.timers.remove(pairer)
            for name in ("registrations", "streams"):  # the stack itself runs with the limits off
                stack.redis.delete(keys.limit(name, "127.0.0.1"))
