"""The table on a phone, in real headless Chromium: whole matches against the bot at 390×844 and
360×640, in English and in Urdu (right to left), on a touch screen.

At every decision the page offers (a card to play or a question to answer), the question (when
one is asked), the clock, the hand and the action buttons are all measured to lie inside the
screen, as the page stands (nothing scrolled into view first). Screenshots of a decision go into
docs/screenshots/phone.<lang>.png with UPDATE_SCREENSHOTS=1.
"""
from __future__ import annotations

import os
import random
import shutil
import uuid
from pathlib import Path

import pytest

from .test_browser_table import (  # noqa: F401 (fixtures)
    _PAGE_STATE,
    SCREENSHOTS,
    browser,
    move,
    open_page,
    sync_api,
)

# What a decision needs, and whether each part is on the screen: {id: "off" | "on" | "absent"}.
_ON_SCREEN = """() => {
  const view = app.view, parts = {};
  const needed = {question: Boolean(view.round && view.round.pending), clock: Boolean(view.clock),
                  hand: true, actions: true};
  for (const [id, wanted] of Object.entries(needed)) {
    const el = document.getElementById(id);
    if (!wanted) { parts[id] = 'absent'; continue; }
    const box = el.getBoundingClientRect();
    const shown = !el.hidden && el.closest('[hidden]') === null && box.width > 0 && box.height > 0;
    const inside = box.top >= 0 && box.left >= 0 && box.bottom <= innerHeight && box.right <= innerWidth;
    const hit = inside && document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    parts[id] = shown && inside && el.contains(hit) ? 'on' : 'off';  // on the screen, and not covered
  }
  return parts;
}"""


def measured_match(page, rng: random.Random, shot: Path, max_moves: int = 400) -> tuple[int, list]:
    """Play the page's match against the bot to its end, measuring every decision: (decisions, failures).
    The screen at the third decision is saved as ``shot``."""
    decisions, failures = 0, []
    for _ in range(max_moves * 20):
        state = page.evaluate(_PAGE_STATE)
        if state["status"] == "finished":
            return decisions, failures
        if not any(key.startswith("play:") or key == "accept" for key in state["moves"]):
            page.wait_for_timeout(25)  # the bot is on turn
            continue
        decisions += 1
        parts = page.evaluate(_ON_SCREEN)
        if "off" in parts.values():
            failures.append((state["version"], parts))
        if decisions == 3:
            page.screenshot(path=str(shot), full_page=False)
        move(page, state, rng)
    raise AssertionError("the match did not end")


@pytest.mark.timeout(240)
@pytest.mark.parametrize("lang", ["en", "ur"])
@pytest.mark.parametrize(("width", "height"), [(390, 844), (360, 640)])
def test_every_decision_of_a_whole_match_fits_a_phone(open_page, lang, width, height, tmp_path):  # noqa: F811
    page = open_page(f"/?lang={lang}", width=width, height=height, touch=True)
    page.locator("#name").fill(f"m-{uuid.uuid4().hex[:8]}")
    page.locator("#register-button").click()
    page.locator("#play-bot").click()
    sync_api.expect(page.locator("#match")).to_have_attribute("data-status", "playing")
    sync_api.expect(page.locator(".key-hint")).to_be_hidden()  # a touch screen has no number keys to hint at
    assert "(" not in (page.locator("#hand button").first.get_attribute("aria-label") or "(")

    shot = tmp_path / f"phone.{lang}.{width}x{height}.png"
    decisions, failures = measured_match(page, random.Random(width + len(lang)), shot)

    assert decisions > 5
    assert failures == [], f"{len(failures)} of {decisions} decisions had a part off the screen: {failures[:5]}"
    assert shot.stat().st_size > 10_000
    if (width, height) == (390, 844) and os.environ.get("UPDATE_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, SCREENSHOTS / f"phone.{lang}.png")
