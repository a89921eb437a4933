"""Accounts at the browser table, in real headless Chromium: log in on a second browser and play on,
log a device out from another, and the question before dropping a token that has no password."""
from __future__ import annotations

import os
import random
import re
import uuid
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists() and os.environ.get("CI") == "true":  # CI must run these: a missing browser fails
    pytest.fail(f"no browser at {CHROMIUM}: CI installs Debian's package (apt-get install chromium)",
                pytrace=False)

from . import test_browser_table as table  # noqa: E402 (after the browser check: it skips without one)
from .test_browser_table import _PAGE_STATE, play, sync_api  # noqa: E402

browser, open_page = table.browser, table.open_page  # the table's fixtures: a Chromium, and pages in contexts

PASSWORD = "a long enough secret"


def register_with_password(page, prefix: str) -> str:
    name = f"{prefix}-{uuid.uuid4().hex[:8]}"
    page.get_by_label("Your name").fill(name)
    page.get_by_label("Password (optional)").fill(PASSWORD)
    page.get_by_role("button", name="Register").click()
    sync_api.expect(page.locator("#whoami-name")).to_have_text(name)
    return name


def log_in(page, name: str) -> None:
    page.locator("#login-name").fill(name)
    page.locator("#login-password").fill(PASSWORD)
    page.locator("#login-button").click()
    sync_api.expect(page.locator("#whoami-name")).to_have_text(name)
    sync_api.expect(page.locator("#account")).to_be_visible()


@pytest.mark.timeout(120)
def test_a_player_logs_in_on_a_second_browser_and_plays_on(open_page):
    first = open_page()
    name = register_with_password(first, "two-devices")
    first.get_by_role("button", name="Play against the bot").click()
    sync_api.expect(first.locator("#match")).to_have_attribute("data-status", "playing")
    match_id = re.search(r"match=([\w-]+)", first.url).group(1)
    version = first.evaluate(_PAGE_STATE)["version"]

    second = open_page()  # another browser context: nothing of the first one's storage
    sync_api.expect(second.locator("#register")).to_be_visible()
    log_in(second, name)
    resume = second.locator(f'#my-matches button[data-match="{match_id}"]')
    sync_api.expect(resume).to_have_text("Play on")
    resume.click()
    sync_api.expect(second.locator("#match")).to_have_attribute("data-status", "playing")
    assert play([second], random.Random(3), until_moves=2) == 2  # the same seat, played from here
    first.wait_for_function("v => Number(document.querySelector('#match').dataset.version) > v", arg=version)
    devices = second.locator("#devices li")
    sync_api.expect(devices).to_have_count(2)
    sync_api.expect(second.locator("#devices li", has_text="(this device)")).to_have_count(1)


@pytest.mark.timeout(120)
def test_a_device_logged_out_from_another_is_refused_and_shows_the_login(open_page):
    first = open_page()
    name = register_with_password(first, "revoker")
    second = open_page()
    log_in(second, name)
    first.reload()  # the first device's list, now with the second's session
    revoke = first.get_by_role("button", name="Log that device out")
    sync_api.expect(revoke).to_have_count(1)
    revoke.click()
    sync_api.expect(first.locator(".message")).to_have_text("That device is logged out.")
    sync_api.expect(first.locator("#devices li")).to_have_count(1)
    # The second page learns it when its stream ends (at its next keep-alive) and its token is refused.
    sync_api.expect(second.locator("#register")).to_be_visible(timeout=40_000)
    sync_api.expect(second.locator(".message")).to_have_text("This device was logged out: log in again.")
    assert second.evaluate("() => localStorage.getItem('truc.player')") is None
    sync_api.expect(first.locator("#whoami-name")).to_have_text(name)  # the first device plays on


@pytest.mark.timeout(60)
def test_logging_out_without_a_password_asks_first_and_with_one_ends_the_session(open_page, stack):
    page = open_page()
    page.get_by_label("Your name").fill(f"tokenonly-{uuid.uuid4().hex[:8]}")
    page.get_by_role("button", name="Register").click()
    sync_api.expect(page.locator("#password-state")).to_have_text("No password yet: set one to log in on other "
                                                                  "devices.")
    asked = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.get_by_role("button", name="Log out").click()
    page.wait_for_function("() => true")
    sync_api.expect(page.locator("#whoami")).to_be_visible()  # dismissed: still playing as them
    assert asked and "no password" in asked[0]

    page.locator("#set-password").fill(PASSWORD)
    page.get_by_role("button", name="Save the password").click()
    sync_api.expect(page.locator("#password-state")).to_have_text("You have a password: change it here.")
    token = page.evaluate("() => JSON.parse(localStorage.getItem('truc.player')).token")
    page.get_by_role("button", name="Log out").click()  # no question now: the password is the key
    sync_api.expect(page.locator("#register")).to_be_visible()
    assert stack.http.post("/stream-tickets", token=token).status == 401  # the session ended on the server
