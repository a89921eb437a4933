"""The browser table in each of its languages, in real headless Chromium: a whole match against the bot.

Each language's table is screenshotted (into docs/screenshots/table.<lang>.png with
UPDATE_SCREENSHOTS=1); the Urdu one is checked to be laid out right to left.
"""
from __future__ import annotations

import random
import uuid
from pathlib import Path

import pytest

from shared.i18n import TRANSLATED

from .conftest import Stack
from .test_browser_table import (  # noqa: F401 (fixtures)
    assert_speaks,
    browser,
    open_page,
    play,
    save_screenshot,
    sync_api,
)

# Where the page's start is: the header's title and the table's first column.
_GEOMETRY = """() => {
  const box = (el) => el.getBoundingClientRect();
  const bar = box(document.querySelector('.bar')), title = box(document.querySelector('.bar h1'));
  const board = document.querySelector('.board');
  return {
    dir: document.documentElement.dir, lang: document.documentElement.lang,
    titleRight: bar.right - title.right, titleLeft: title.left - bar.left,
    playLeft: box(board.querySelector('.play-area')).left, logLeft: box(board.querySelector('.log-panel')).left,
    logDirection: getComputedStyle(document.querySelector('#log')).direction,
  };
}"""


def finished_match(open_page, lang: str):  # noqa: F811 (the fixture, passed in)
    page = open_page(f"/?lang={lang}", width=1100, height=900)
    page.locator("#name").fill(f"p-{uuid.uuid4().hex[:8]}")
    page.locator("#register-button").click()
    page.locator("#play-bot").click()
    sync_api.expect(page.locator("#match")).to_have_attribute("data-status", "playing")
    play([page], random.Random(len(lang)))
    sync_api.expect(page.locator("#match")).to_have_attribute("data-status", "finished")
    return page


@pytest.mark.timeout(120)
@pytest.mark.parametrize("lang", TRANSLATED)  # English: test_browser_table
def test_a_whole_match_against_the_bot_in_each_language(open_page, lang: str, tmp_path: Path):  # noqa: F811
    page = finished_match(open_page, lang)
    assert_speaks(page, lang)
    save_screenshot(page, tmp_path, f"table.{lang}.png")
    if lang == "ur":
        geometry = page.evaluate(_GEOMETRY)
        assert geometry["dir"] == "rtl"
        assert geometry["titleRight"] < geometry["titleLeft"], geometry  # the title sits at the right
        assert geometry["logLeft"] < geometry["playLeft"], geometry  # the log, the second column, is on the left
        assert geometry["logDirection"] == "rtl"


# The opponent's name (its own box, not its heading's) and the cards of its seat, as boxes.
_SEAT_BOXES = """() => {
  const box = (el) => { const b = el.getBoundingClientRect(); return {left: b.left, right: b.right}; };
  return {name: box(document.querySelector('#opponent-name')),
          cards: box(document.querySelector('#opponent-cards .card.back')),
          area: box(document.querySelector('.play-area')), text: document.querySelector('#opponent-name').textContent};
}"""


@pytest.mark.timeout(60)
def test_a_latin_name_sits_beside_its_seats_cards_in_urdu(open_page):  # noqa: F811
    page = open_page("/?lang=ur", width=1100, height=900)
    page.locator("#name").fill(f"p-{uuid.uuid4().hex[:8]}")
    page.locator("#register-button").click()
    page.locator("#play-bot").click()
    sync_api.expect(page.locator("#opponent-cards .card.back").first).to_be_visible()
    boxes = page.evaluate(_SEAT_BOXES)
    assert "Bot" in boxes["text"]
    middle = (boxes["area"]["left"] + boxes["area"]["right"]) / 2
    assert boxes["cards"]["left"] > middle, boxes  # right to left: the seat's cards start at the right
    assert boxes["name"]["left"] > middle, boxes  # and its name (Latin script) with them, not across the table
    assert abs(boxes["name"]["right"] - boxes["cards"]["right"]) < 24, boxes


@pytest.mark.timeout(60)
def test_the_picker_switches_the_language_and_remembers_it(open_page):  # noqa: F811
    page = open_page("/?lang=fi")
    sync_api.expect(page.locator("#register-title")).to_have_text("Istuudu pöytään")
    page.locator("#lang-picker").select_option("ur")
    page.wait_for_function("() => document.documentElement.dir === 'rtl'")
    assert page.evaluate("() => document.documentElement.lang") == "ur"
    page.goto(page.url.split("?")[0])  # no ?lang=: the cookie remembers
    assert page.evaluate("() => document.documentElement.lang") == "ur"
    assert "lang=ur" in page.evaluate("() => document.cookie")


@pytest.mark.parametrize(("query", "headers", "lang"), [
    ("", {"Accept-Language": "nl-BE;q=0.5, ur;q=0.9"}, "ur"),
    ("?lang=bn", {"Accept-Language": "fi", "Cookie": "lang=pa"}, "bn"),
    ("", {"Accept-Language": "fi", "Cookie": "lang=pa"}, "pa"),
    ("?lang=xx", {"Accept-Language": "de"}, "en"),
])
def test_the_page_is_served_in_the_language_asked_for(stack: Stack, query, headers, lang):
    reply = stack.http.get(f"/{query}", headers=headers)
    assert reply.status == 200
    assert reply.headers["content-language"] == lang
    assert {v.strip() for v in reply.headers["vary"].split(",")} >= {"Accept-Language", "Cookie"}
    html = reply.raw.decode() if isinstance(reply.raw, bytes) else str(reply.body)
    direction = "rtl" if lang == "ur" else "ltr"
    assert f'<html lang="{lang}" dir="{direction}">' in html
