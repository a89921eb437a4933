"""How to play, in real headless Chromium: the rules page in every language, the table's help
panel, and the table saying what a choice that ends the match will do before it is made.

Screenshots of the rules page go into docs/screenshots/rules.<lang>.png with UPDATE_SCREENSHOTS=1.
"""
from __future__ import annotations

import pytest

from shared.i18n import LANGUAGES, direction, how_to_play, translator

from .conftest import Stack
from .test_browser_table import (  # noqa: F401 (fixtures)
    browser,
    open_page,
    register_in,
    save_screenshot,
    sync_api,
)

SHOWN = ("en", "ur", "bn", "fr")  # the languages whose pages are kept as screenshots


@pytest.mark.timeout(60)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_rules_page_speaks_each_language(open_page, lang: str, tmp_path):  # noqa: F811
    page = open_page(f"/rules?lang={lang}", width=1000, height=900)
    rules, table = translator(lang, "rules").gettext, translator(lang, "table").gettext
    assert page.evaluate("() => [document.documentElement.lang, document.documentElement.dir]") == \
        [lang, direction(lang)]
    sync_api.expect(page.locator("h1")).to_contain_text(table("How to play"))
    sections = page.locator("main section")
    sync_api.expect(sections).to_have_count(len(how_to_play.SECTIONS))
    sync_api.expect(page.locator("#rules-ladder")).to_contain_text("1, 2, 6, 8, 10, …")
    sync_api.expect(page.locator("#rules-ranking")).to_contain_text("9 < 10 < J < Q < K < A < 8 < 7")
    sync_api.expect(page.locator("#rules-answers h2")).to_have_text(rules("What each answer does"))
    sync_api.expect(page.locator("#rules-remainder")).to_contain_text(rules("“My remainder”"))
    if lang != "en":  # written in the language, not left in English
        assert rules("What each answer does") != "What each answer does"
    assert page.evaluate("() => document.fonts.check('16px ' + getComputedStyle(document.body).fontFamily)")
    assert page.locator("link[rel=icon]").get_attribute("href") == "/static/favicon.svg"
    if lang in SHOWN:
        save_screenshot(page, tmp_path, f"rules.{lang}.png")
    page.locator("#back-to-table").click()
    page.wait_for_url(f"**/?lang={lang}")
    assert page.evaluate("() => document.documentElement.lang") == lang


def test_the_rules_page_is_served_in_the_language_asked_for(stack: Stack):
    reply = stack.http.get("/rules", headers={"Accept-Language": "ca, fr;q=0.5"})
    assert reply.status == 200
    assert reply.headers["content-language"] == "ca"
    html = reply.raw.decode() if isinstance(reply.raw, bytes) else str(reply.body)
    assert '<html lang="ca" dir="ltr">' in html and "Joc fora" in html


@pytest.mark.timeout(60)
def test_the_table_links_the_rules_and_carries_a_compact_help(open_page):  # noqa: F811
    page = open_page("/?lang=fr")
    assert page.locator("#rules-page").get_attribute("href") == "/rules?lang=fr"
    help_sections = page.locator("#help section")
    sync_api.expect(help_sections).to_have_count(sum(s.in_help for s in how_to_play.SECTIONS))
    assert "Deux de plus ?" in page.locator("#help").text_content()


# A view of the page's own match where the opponent declared "my remainder", or where a fold
# would give the opponent the points that reach the target: what the table says under the actions.
_ENDING = """(kind) => {
  const me = app.view.you, them = me === 'A' ? 'B' : 'A';
  const round = {...app.view.round, value: 2, remainder_round: false,
    pending: kind === 'remainder' ? {type: 'remainder', by: them, value: 2} : null};
  const scores = {...app.view.scores, [them]: kind === 'match-point' ? 11 : 0};
  const legal = kind === 'remainder' ? [{type: 'accept'}, {type: 'reject'}, {type: 'fold'}, {type: 'resign'}]
    : [{type: 'fold'}, {type: 'resign'}];
  onView({...app.view, version: app.view.version + 1000, round, scores, legal_actions: legal});
  return document.querySelector('#warning').hidden ? null : document.querySelector('#warning').textContent;
}"""


@pytest.mark.timeout(60)
def test_before_a_choice_that_ends_the_match_the_table_says_what_it_will_do(open_page):  # noqa: F811
    page = open_page()
    register_in(page, "warned")
    page.get_by_role("button", name="Play against the bot").click()
    sync_api.expect(page.locator("#match")).to_have_attribute("data-status", "playing")
    opponent = page.evaluate("() => app.view.players[app.view.you === 'A' ? 'B' : 'A'].name")

    said = page.evaluate(_ENDING, "remainder")
    assert said == f"If you refuse or fold, \u2068{opponent}\u2069 wins the match."
    assert page.locator('[data-key="reject"]').get_attribute("aria-describedby") == "warning"
    assert page.evaluate(_ENDING, "match-point") == f"If you fold, \u2068{opponent}\u2069 wins the match."
    assert page.evaluate(_ENDING, "nothing") is None  # a fold at 0 points ends only the round
