"""The browser table at ``/``, driven in real headless Chromium: register, start a match, play it to the end."""
from __future__ import annotations

import json
import os
import random
import re
import shutil
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from shared.i18n import translator

from .conftest import ROOT, Stack

CHROMIUM = Path("/usr/bin/chromium")
# Playwright's own browser download cannot work here: it drives the distribution's Chromium.
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
SCREENSHOTS = ROOT / "docs" / "screenshots"

if not CHROMIUM.exists() and os.environ.get("CI") == "true":  # a CI run must test the browser, not skip it
    pytest.fail(f"no browser at {CHROMIUM}: install Debian's package (apt-get install chromium)", pytrace=False)
if not CHROMIUM.exists():
    pytest.skip(f"no browser at {CHROMIUM}: install Debian's package (apt-get install chromium)",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="the dev extra installs playwright")

# What the page shows when its state changes: the match's status, version and the moves on offer.
_PAGE_STATE = """() => {
  const match = document.querySelector('#match');
  const error = document.querySelector('.message.error');
  return {
    shown: !match.hidden, status: match.dataset.status || null, version: Number(match.dataset.version || 0),
    error: error ? error.textContent : null,
    moves: [...document.querySelectorAll('#hand button:enabled, #actions button:enabled')].map(b => b.dataset.key),
  };
}"""
_MOVED_ON = """v => Number(document.querySelector('#match').dataset.version) > v
  || document.querySelector('#match').dataset.status === 'finished' || document.querySelector('.message.error')"""
# The page's answer to a move that lost a race with the other seat's (412): it asks the player to look again.
_RACE_LOST = "moved on"


@pytest.fixture(scope="module")
def browser() -> Iterator:
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def open_page(browser, stack: Stack):
    """New pages on the table, each in a browser context of its own (its own localStorage);
    ``touch``: a phone's (a touch screen, no mouse)."""
    contexts, errors = [], []

    def open_page(path: str = "/", width: int = 1100, height: int = 900, touch: bool = False):
        context = browser.new_context(viewport={"width": width, "height": height},
                                      **({"has_touch": True, "is_mobile": True} if touch else {}))
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(error))  # a script that threw: the page half drawn
        page.set_default_timeout(10_000)
        page.goto(f"http://{stack.http.host}:{stack.http.port}{path}")
        return page

    yield open_page
    for context in contexts:
        context.close()
    assert not errors, [str(error) for error in errors]


def register_in(page, prefix: str) -> str:
    name = f"{prefix}-{uuid.uuid4().hex[:8]}"
    page.get_by_label("Your name").fill(name)
    page.get_by_role("button", name="Register").click()
    sync_api.expect(page.locator("#whoami-name")).to_have_text(name)
    return name


def choose(moves: list[str], rng: random.Random) -> str | None:
    """A real move among the enabled buttons: answer, sometimes raise, else play; never fold or redeal."""
    if "accept" in moves:
        return "accept"
    if "raise" in moves and rng.random() < 0.4:
        return "raise"
    plays = [key for key in moves if key.startswith("play:")]
    return rng.choice(plays) if plays else None


def move(page, state: dict, rng: random.Random) -> bool:
    """Make one move on ``page`` if it has one, and wait until its view moves on; False if it had none."""
    key = choose(state["moves"], rng)
    if key is None:
        return False
    if key.startswith("play:") and rng.random() < 0.5:
        index = page.locator("#hand button").evaluate_all(
            "(buttons, key) => buttons.findIndex(b => b.dataset.key === key)", key)
        page.keyboard.press(str(index + 1))  # the number keys play the cards in hand
    else:
        page.locator(f'[data-key="{key}"]').click()
    page.wait_for_function(_MOVED_ON, arg=state["version"])
    return True


def play(pages: list, rng: random.Random, until_moves: int | None = None, max_moves: int = 600,
         stall_seconds: float = 20) -> int:
    """Click legal action buttons on ``pages`` until their match is over (or ``until_moves``); the moves made."""
    moves, version, progressed = 0, -1, time.monotonic()
    while moves < max_moves:
        states = [page.evaluate(_PAGE_STATE) for page in pages]
        if states[0]["status"] == "finished" or moves == until_moves:
            return moves
        refusals = [state["error"] for state in states if state["error"] and _RACE_LOST not in state["error"]]
        assert not refusals, refusals
        if states[0]["version"] != version:
            version, progressed = states[0]["version"], time.monotonic()
        stalled = f"nothing moved for {stall_seconds:.0f} s at version {version}: the other seat did not play"
        assert time.monotonic() - progressed < stall_seconds, stalled
        acted = [move(page, state, rng) for page, state in zip(pages, states)]
        moves += sum(acted)
        if not any(acted):  # the other seat (a page or the bot) is on turn
            pages[0].wait_for_timeout(25)
    raise AssertionError(f"the match did not end in {max_moves} moves")


def assert_finished_table(page) -> None:
    said = re.compile("the match", re.IGNORECASE)  # "... wins the match", "The match was aborted ..."
    sync_api.expect(page.locator("#status")).to_contain_text(said)
    sync_api.expect(page.locator("#log")).to_contain_text(said)
    assert page.locator("#actions button, #hand button").count() == 0
    sync_api.expect(page.get_by_role("button", name="Play against the bot")).to_be_visible()


def assert_speaks(page, lang: str) -> None:
    """A finished match's table in ``lang``: its words, a long log, and letters its fonts can draw."""
    words = translator(lang, "table").gettext
    assert page.evaluate("() => document.documentElement.lang") == lang
    sync_api.expect(page.locator("#log-title")).to_have_text(words("Round log"))
    sync_api.expect(page.locator("#play-bot")).to_have_text(words("Play against the bot"))
    assert page.locator("#log li").count() > 10
    assert page.evaluate("() => document.fonts.check('16px ' + getComputedStyle(document.body).fontFamily)")


def save_screenshot(page, tmp_path: Path, name: str = "table.png") -> None:
    """Always into the test's tmp dir; into docs/ too with UPDATE_SCREENSHOTS=1 (keeps the tree clean)."""
    shot = tmp_path / name
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    if os.environ.get("UPDATE_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, SCREENSHOTS / name)


def waiting_match(open_page):
    """Alice registers and creates a match for a friend: her page, waiting."""
    alice = open_page()
    register_in(alice, "alice")
    alice.get_by_role("button", name="Create a match for a friend").click()
    # A private match: the invite rides in the fragment, which no request sends
    sync_api.expect(alice.locator("#share-link")).to_have_value(re.compile(r"/\?join=[A-Za-z0-9_-]+#invite=[\w-]{22}$"))
    sync_api.expect(alice.locator("#status")).to_contain_text("Waiting for an opponent")
    return alice


def seated_pair(open_page):
    """Alice's waiting match, joined by Bob from her link on a phone-sized screen: both pages, playing."""
    alice = waiting_match(open_page)
    shared = urlsplit(alice.locator("#share-link").input_value())
    bob = open_page(f"{shared.path}?{shared.query}#{shared.fragment}", width=390, height=844)
    sync_api.expect(bob.locator(".message")).to_contain_text("Choose a name")
    register_in(bob, "bob")
    invited = re.compile(r"\u2068alice-\w+\u2069 invites you")  # names are isolated (FSI … PDI) in sentences
    sync_api.expect(bob.locator("#invite-text")).to_contain_text(invited)  # asks first
    sync_api.expect(bob.locator("#invite-clock")).to_have_text("Each turn has 60 s.")  # on what clock
    sync_api.expect(bob.locator("#invite-watch")).to_be_hidden()  # a private match that waits is not watched
    bob.get_by_role("button", name="Join the match").click()
    sync_api.expect(bob.locator("#match")).to_have_attribute("data-status", "playing")
    sync_api.expect(alice.locator("#match")).to_have_attribute("data-status", "playing")
    sync_api.expect(alice.locator("#hand button")).to_have_count(3)
    assert "match=" in bob.url
    return alice, bob


@pytest.mark.timeout(180)
def test_two_players_share_a_link_and_play_a_match_to_the_end(open_page, tmp_path):
    alice, bob = seated_pair(open_page)
    for page in (alice, bob):  # one clock runs, the same for both, counting down from turn_seconds
        clock = re.compile(r"^(Your|\u2068\w+-\w+\u2069’s) clock: \d+ s left")
        sync_api.expect(page.locator("#clock")).to_have_text(clock)
    assert {page.locator("#clock").text_content().split(":")[0] for page in (alice, bob)} & {"Your clock"}

    rng = random.Random(1)
    moves = play([alice, bob], rng, until_moves=3)
    alice.screenshot(path=str(tmp_path / "alice-playing.png"), full_page=True)
    bob.screenshot(path=str(tmp_path / "bob-playing.png"), full_page=True)
    moves += play([alice, bob], rng)

    assert moves > 3
    for page in (alice, bob):
        assert_finished_table(page)
    save_screenshot(alice, tmp_path)


@pytest.mark.timeout(180)
def test_a_player_registers_and_plays_a_whole_match_against_the_bot(open_page, tmp_path):
    page = open_page()
    register_in(page, "solo")
    page.get_by_role("button", name="Play against the bot").click()
    page.wait_for_function("() => !document.querySelector('#match').hidden"
                           " || document.querySelector('.message.error')")
    refusal = page.evaluate(_PAGE_STATE)["error"]
    assert refusal is None, refusal
    sync_api.expect(page.locator("#match")).to_have_attribute("data-status", "playing")

    play([page], random.Random(2))

    assert_finished_table(page)
    assert_speaks(page, "en")
    save_screenshot(page, tmp_path)


@pytest.mark.timeout(60)
def test_a_move_awaited_in_another_match_is_shown_with_a_link_to_it(open_page, stack: Stack):
    page = open_page()
    register_in(page, "busy")
    page.get_by_role("button", name="Play against the bot").click()
    sync_api.expect(page.locator("#match")).to_have_attribute("data-status", "playing")
    opened = page.evaluate("() => new URLSearchParams(location.search).get('match')")
    token = page.evaluate("() => JSON.parse(localStorage.getItem('truc.player')).token")
    other = stack.http.post("/matches", {"opponent": "bot", "first_dealer": "B"}, token=token)  # we lead at once
    assert other.status == 201, other.body

    notice = page.locator("#elsewhere a")
    sync_api.expect(notice).to_have_text("Your move in another match")
    assert notice.get_attribute("href") == f"/?match={other.body['id']}" != f"/?match={opened}"
    notice.click()
    sync_api.expect(page.locator("#elsewhere")).to_be_hidden()
    assert page.evaluate("() => new URLSearchParams(location.search).get('match')") == other.body["id"]
    sync_api.expect(page.locator("#hand button:enabled")).not_to_have_count(0)  # our lead, here


@pytest.mark.timeout(120)
def test_resigning_asks_first_and_both_tables_say_who_resigned(open_page):
    alice, bob = seated_pair(open_page)
    resign = bob.get_by_role("button", name="Resign")

    resign.click()
    sync_api.expect(bob.locator("#resign-question")).to_have_text(re.compile("^Resign this match?"))
    sync_api.expect(bob.get_by_role("button", name="No, play on")).to_be_focused()
    bob.keyboard.press("Escape")  # no: nothing is sent
    sync_api.expect(resign).to_be_focused()
    assert bob.locator("#resign-question").count() == 0
    sync_api.expect(alice.locator("#match")).to_have_attribute("data-status", "playing")

    resign.click()
    bob.get_by_role("button", name="Yes, resign").click()

    for page in (alice, bob):
        sync_api.expect(page.locator("#match")).to_have_attribute("data-status", "finished")
        assert_finished_table(page)
        sync_api.expect(page.locator("#clock")).to_be_hidden()
    # Resigned in round 1: the match is aborted (it does not count); the log says who resigned.
    for page in (alice, bob):
        sync_api.expect(page.locator("#status")).to_have_text(
            "The match was aborted before round 1 was over: it does not count.")
    sync_api.expect(bob.locator("#log")).to_contain_text("You resign: \u2068alice")
    sync_api.expect(alice.locator("#log")).to_contain_text(re.compile(r"\u2068bob-\w+\u2069 resigns: you win"))


@pytest.mark.timeout(60)
def test_the_creator_cancels_a_waiting_match(open_page):
    alice = waiting_match(open_page)

    alice.get_by_role("button", name="Cancel the match").click()

    sync_api.expect(alice.locator("#match")).to_have_attribute("data-status", "cancelled")
    sync_api.expect(alice.locator("#status")).to_have_text("The match was cancelled by its creator.")
    sync_api.expect(alice.locator("#log")).to_contain_text("The creator cancelled the match.")
    sync_api.expect(alice.locator("#share")).to_be_hidden()
    assert alice.locator("#actions button").count() == 0
    sync_api.expect(alice.get_by_role("button", name="Play against the bot")).to_be_visible()


# Rather than wait out a real clock, the page is shown the views and events a timeout brings.
_NEARLY_OUT = """() => onView({...app.view, version: app.view.version + 1000,
  clock: {seat: app.view.you, deadline: new Date(Date.now() + 8000).toISOString(), turn_seconds: 60}})"""
_DESCRIBED = """() => {
  const me = app.view.you, them = me === 'A' ? 'B' : 'A';
  return [
    describe({type: 'turn_timed_out', data: {seat: me, deadline: 0}}),
    describe({type: 'turn_timed_out', data: {seat: them, deadline: 0}}),
    describe({type: 'match_won', data: {seat: them, scores: {A: 3, B: 5}, reason: 'abandoned'}}),
    describe({type: 'match_cancelled', data: {reason: 'expired'}}),
    endingLine({...app.view, status: 'finished', winner: them, ended_by: 'abandoned', scores: {A: 3, B: 5}}),
    endingLine({...app.view, status: 'cancelled', winner: null, ended_by: 'expired'}),
  ];
}"""


@pytest.mark.timeout(120)
def test_a_clock_nearly_out_is_announced_once_and_timeouts_are_described(open_page):
    alice, _ = seated_pair(open_page)

    alice.evaluate(_NEARLY_OUT)

    alert = alice.locator("#clock-alert")
    sync_api.expect(alert).to_have_text(re.compile(r"^[5-8] seconds left to decide\.$"))
    sync_api.expect(alice.locator("#clock")).to_have_class(re.compile(r"\blow\b"))
    said = alert.text_content()
    alice.wait_for_timeout(2100)  # two ticks later: the countdown moved on, the announcement did not
    assert alert.text_content() == said
    texts = alice.evaluate(_DESCRIBED)
    assert texts[0] == "Your time ran out."
    assert re.fullmatch(r"\u2068bob-\w+\u2069’s time ran out\.", texts[1])
    assert re.fullmatch(r"You run out of time twice in a row: \u2068bob-\w+\u2069 wins the match 3–5\.", texts[2])
    assert texts[3] == "The match expired: nobody joined in time."
    assert re.fullmatch(r"\u2068bob-\w+\u2069 wins the match 3–5: you ran out of time twice in a row\.", texts[4])
    assert texts[5] == "The match expired: nobody joined in time."


# What the server says of a client address past its share of streams (the markup must show as text).
_STREAMS_LIMITED = "Too many live streams are open from your address; close one, or try again in 1 second. <b>"


@pytest.mark.timeout(60)
def test_a_refused_stream_is_explained_and_tried_again_after_retry_after(open_page):
    page = open_page()
    register_in(page, "refused")
    asked: list[str] = []
    languages: list[str | None] = []

    def refuse_twice(route) -> None:  # the EventSource, then the page's own look at why
        asked.append(route.request.headers.get("accept", ""))
        languages.append(route.request.headers.get("accept-language"))
        if len(asked) > 2:
            route.continue_()
            return
        refusal = {"error": "RATE_LIMITED", "limit": "streams", "message": _STREAMS_LIMITED}
        route.fulfill(status=429, headers={"Retry-After": "1"}, content_type="application/json",
                      body=json.dumps(refusal))

    page.route(re.compile(r"/matches/[^/]+/stream"), refuse_twice)
    started = time.monotonic()
    page.get_by_role("button", name="Create a match for a friend").click()

    sync_api.expect(page.locator(".message.error")).to_have_text(_STREAMS_LIMITED)  # as text, not markup
    assert page.locator(".message b").count() == 0
    sync_api.expect(page.locator("#live")).to_have_text("Not connected.")
    sync_api.expect(page.locator("#live")).to_have_text("● Live")  # tried again, as the server asked
    assert time.monotonic() - started >= 1
    sync_api.expect(page.locator("#status")).to_contain_text("Waiting for an opponent")
    sync_api.expect(page.locator("#message")).to_have_text("")  # the sentence goes with the refusal
    assert len(asked) == 3 and all("text/event-stream" in accept for accept in asked)
    assert languages[1] == "en"  # the page's look at why asks for the sentence in the page's language


@pytest.mark.timeout(60)
def test_a_raise_owed_an_answer_is_said_the_same_by_the_question_the_status_and_the_clock(open_page):
    alice, bob = seated_pair(open_page)
    raiser = next(page for page in (alice, bob) if page.locator('#actions [data-key="raise"]:enabled').count())
    answerer = bob if raiser is alice else alice
    raiser.locator('[data-key="raise"]').click()
    sync_api.expect(answerer.locator('[data-key="accept"]')).to_be_enabled()
    sync_api.expect(answerer.locator("#question")).to_contain_text("Your answer?")
    sync_api.expect(answerer.locator("#clock")).to_contain_text("Your clock")
    sync_api.expect(answerer.locator("#status")).to_contain_text("your turn to answer")
    assert "to play" not in answerer.locator("#status").text_content()  # the raiser is on turn, but waits
    sync_api.expect(raiser.locator("#status")).to_contain_text(re.compile(r"\u2068\w+-\w+\u2069 to answer"))
    sync_api.expect(raiser.locator("#question")).to_contain_text("is to answer.")
    sync_api.expect(raiser.locator("#clock")).to_contain_text("’s clock")


# The top of an element, read at each of the next twelve frames.
_TOPS = """card => new Promise(done => {
  const tops = [];
  const look = () => {
    tops.push(card.getBoundingClientRect().top);
    tops.length < 12 ? requestAnimationFrame(look) : done(tops);
  };
  requestAnimationFrame(look);
})"""


@pytest.mark.timeout(60)
def test_a_card_hovered_at_its_lower_edge_stays_still(open_page):
    """Hovering lifts a playable card; a pointer on the strip the lift uncovers keeps it lifted, rather than
    dropping and lifting it at every frame (a card that jitters under the pointer, which no click can catch)."""
    page = open_page()
    register_in(page, "hover")
    page.get_by_role("button", name="Play against the bot").click()
    card = page.locator("#hand button.card:enabled").first  # the player's turn: its cards are playable
    box = card.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] - 2)
    tops = card.evaluate(_TOPS)
    assert len(set(tops)) == 1 and tops[0] < box["y"], tops  # lifted, and still
