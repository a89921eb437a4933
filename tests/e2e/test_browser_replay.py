"""A finished match at the browser table, in real headless Chromium: its move-by-move replay
(buttons, the round picker, the keyboard), the check of its deals against the revealed seed
(recomputed in the page with Web Crypto), and the export the page builds from the log, which
`truc import`'s own reader and the audit accept.

Screenshots go to docs/screenshots/replay.<desktop|phone>.<lang>.png with UPDATE_SCREENSHOTS=1.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import time
from pathlib import Path

import pytest

from services.cli.exports import read_export
from shared.audit import audit_events
from shared.i18n import translator

from .conftest import Stack
from .table import Seated, new_match, play_to_the_end
from .test_browser_table import SCREENSHOTS, browser, open_page, sync_api  # noqa: F401 (fixtures)

_FINISHED: dict[str, tuple[str, Seated]] = {}


def finished_match(stack: Stack) -> tuple[str, Seated]:
    """A match to 3 points played through the API to its end, in three rounds or more: (id, A).
    (A raised round can end a match at once: such a match is played again.)"""
    for attempt in range(8):
        if "match" in _FINISHED:
            break
        match_id, a, b = new_match(stack, rules={"target": 3})
        play_to_the_end(stack, match_id, {"A": a, "B": b}, random.Random(attempt))
        if sum(event["type"] == "round_dealt" for event in log_of(stack, match_id)) >= 3:
            _FINISHED["match"] = (match_id, a)
    assert "match" in _FINISHED, "no match of 8 lasted three rounds"
    return _FINISHED["match"]


def as_player(open_page, player: Seated, match_id: str, lang: str = "en", late_script: str = "", **size):  # noqa: F811
    """The table of ``player`` (kept in this browser's storage, as after registering) on the match;
    ``late_script``: one of the page's scripts arrives a second late."""
    page = open_page(f"/?lang={lang}", **size)
    page.evaluate("p => localStorage.setItem('truc.player', JSON.stringify(p))",
                  {"id": player.id, "name": player.name, "token": player.token})
    if late_script:
        page.route(f"**/static/{late_script}", lambda route: (time.sleep(1), route.continue_()))
    page.goto(f"{page.url.split('?')[0]}?lang={lang}&match={match_id}")
    sync_api.expect(page.locator("#match")).to_have_attribute("data-status", "finished")
    sync_api.expect(page.locator("#replay")).to_be_visible()
    return page


def log_of(stack: Stack, match_id: str) -> list[dict]:
    reply = stack.http.get(f"/matches/{match_id}/events?limit=1000")
    assert reply.status == 200, reply.body
    return reply.body["events"]


def shown_at(page, version: int) -> None:
    sync_api.expect(page.locator("#replay")).to_have_attribute("data-version", str(version))


@pytest.mark.timeout(180)
def test_a_finished_match_is_stepped_through_by_button_round_and_key(open_page, stack: Stack):  # noqa: F811
    match_id, alice = finished_match(stack)
    events = log_of(stack, match_id)
    total = len(events)
    deals = [event["version"] for event in events if event["type"] == "round_dealt"]
    assert len(deals) >= 3
    page = as_player(open_page, alice, match_id)

    shown_at(page, total)  # it opens on the end
    sync_api.expect(page.locator("#replay-position")).to_have_text(f"Move {total} of {total}")
    sync_api.expect(page.locator("#replay-next")).to_be_disabled()
    page.locator("#replay-previous").click()
    shown_at(page, total - 1)
    page.locator("#replay-next").click()
    shown_at(page, total)

    page.locator("#replay-round").select_option(str(deals[1]))  # round 2 starts at its deal
    shown_at(page, deals[1])
    sync_api.expect(page.locator("#replay-event")).to_contain_text("Round 2")
    assert page.locator("#replay-hands .card").count() == 6  # both hands, the match being over
    page.locator("#replay-next").click()
    shown_at(page, deals[1] + 1)
    played = events[deals[1]]  # the event right after the deal, as the log says
    if played["type"] == "card_played":
        sync_api.expect(page.locator("#replay-tricks li")).to_have_count(1)

    page.locator("#replay-next").focus()
    page.keyboard.press("ArrowLeft")
    shown_at(page, deals[1])
    page.keyboard.press("Home")
    shown_at(page, 1)
    sync_api.expect(page.locator("#replay-previous")).to_be_disabled()
    created = f"\u2068{alice.name}\u2069 created the match."  # the name by id, the directory's; isolated
    sync_api.expect(page.locator("#replay-event")).to_have_text(created)
    sync_api.expect(page.locator("#log li").first).to_have_text(created)
    sync_api.expect(page.locator("#log li").nth(1)).to_contain_text("sat down.")
    assert "undefined" not in page.locator("#log").text_content()
    page.keyboard.press("PageDown")
    shown_at(page, deals[0])
    page.keyboard.press("PageDown")
    shown_at(page, deals[1])
    page.keyboard.press("ArrowRight")
    shown_at(page, deals[1] + 1)
    page.keyboard.press("End")
    shown_at(page, total)
    assert page.locator(".message.error").count() == 0


@pytest.mark.timeout(180)
@pytest.mark.parametrize("late_script", ["replay.js", "lobby.js"])
def test_the_replay_shows_however_late_a_script_arrives(open_page, stack: Stack, late_script):  # noqa: F811
    """The match's view may come before the last deferred script has run: the table starts after them all."""
    match_id, alice = finished_match(stack)
    page = as_player(open_page, alice, match_id, late_script=late_script)
    sync_api.expect(page.locator("#replay-position")).to_contain_text("Move ")
    sync_api.expect(page.locator("#finished-matches li")).not_to_have_count(0)


@pytest.mark.timeout(180)
def test_the_deals_verify_and_an_export_with_another_seed_fails(open_page, stack: Stack, tmp_path):  # noqa: F811
    match_id, alice = finished_match(stack)
    page = as_player(open_page, alice, match_id)
    page.locator("#verify").click()
    sync_api.expect(page.locator("#verify-result")).to_have_attribute("data-verdict", "pass")
    sync_api.expect(page.locator("#verify-result")).to_contain_text("Pass: the seed matches its commitment")

    with page.expect_download() as downloading:
        page.locator("#download-export").click()
    path = tmp_path / downloading.value.suggested_filename
    downloading.value.save_as(path)
    lines = path.read_bytes().splitlines(keepends=True)
    exported = read_export(lines)  # what `truc import` reads, holding every value to the API's rules
    assert exported.match_id == match_id and len(exported.events) == len(log_of(stack, match_id))
    assert exported.names[alice.id] == alice.name
    assert audit_events(match_id, exported.events).ok  # the chain and every decision check out

    header, *events = [json.loads(line) for line in lines]
    won = next(event for event in events if event["type"] == "match_won")
    won["data"]["seed"] = "%064x" % (int(won["data"]["seed"], 16) ^ 1)  # one bit of the seed changed
    verdict = verify_file(page, tmp_path / "other-seed.jsonl", header, events)
    assert "commitment" in verdict

    won["data"]["seed"] = "%064x" % (int(won["data"]["seed"], 16) ^ 1)  # the true seed again
    deal = next(event for event in events if event["type"] == "round_dealt" and event["data"]["round"] == 2)
    hands = deal["data"]["hands"]
    hands["A"][0], hands["B"][0] = hands["B"][0], hands["A"][0]  # one card swapped between the hands
    assert "round 2" in verify_file(page, tmp_path / "other-deal.jsonl", header, events)

    verify_file(page, tmp_path / "not-an-export.jsonl", {"format": "other"}, events)
    sync_api.expect(page.locator("#verify-result")).to_have_text("This file is not a match export.")


def verify_file(page, path: Path, header: dict, events: list[dict]) -> str:
    """Feed the page's verify view an export file; its verdict (a failure, here)."""
    path.write_text("".join(json.dumps(line) + "\n" for line in [header, *events]))
    page.locator("#verify-result").evaluate("box => { box.textContent = ''; delete box.dataset.verdict; }")
    page.locator("#verify-file").set_input_files(str(path))
    sync_api.expect(page.locator("#verify-result")).to_have_attribute("data-verdict", "fail")
    return page.locator("#verify-result").text_content()


@pytest.mark.timeout(180)
@pytest.mark.parametrize("lang", ["en", "ur", "bn", "fr"])
@pytest.mark.parametrize(("device", "size"), [("desktop", {"width": 1100, "height": 900}),
                                              ("phone", {"width": 390, "height": 844, "touch": True})])
def test_the_replay_speaks_the_page_language(open_page, stack: Stack, lang, device, size, tmp_path):  # noqa: F811
    match_id, alice = finished_match(stack)
    page = as_player(open_page, alice, match_id, lang, **size)
    words = translator(lang, "table").gettext
    sync_api.expect(page.locator("#replay-title")).to_have_text(words("Replay"))
    page.locator("#replay-previous").click()
    page.locator("#verify").click()
    sync_api.expect(page.locator("#verify-result")).to_have_attribute("data-verdict", "pass")
    box = page.locator("#replay").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"] + 1  # nothing spills off the screen
    assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]  # nor widens the page
    shot = tmp_path / f"replay.{device}.{lang}.png"
    page.locator("#replay").scroll_into_view_if_needed()
    page.screenshot(path=str(shot), full_page=device == "desktop")
    assert shot.stat().st_size > 10_000
    if os.environ.get("UPDATE_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, SCREENSHOTS / shot.name)
