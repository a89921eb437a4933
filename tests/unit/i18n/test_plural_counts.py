"""The server's answers (domain ``messages``) in each language: counts take CLDR's plural forms.
(Every domain's catalogues are checked complete in test_catalogues.)"""

import pytest
from babel import Locale
from babel.messages.pofile import read_po

from shared.i18n import TRANSLATED, translator
from shared.i18n.extract import DOMAINS


@pytest.mark.parametrize("lang", TRANSLATED)
def test_counts_take_cldrs_plural_forms(lang) -> None:
    with DOMAINS["messages"].po_path(lang).open("rb") as source:
        catalogue = read_po(source, locale=lang, domain="messages")
    rule = Locale.parse(lang).plural_form
    forms = catalogue.get(("{count} second", "{count} seconds")).string
    one, other = forms[0], forms[-1]  # CLDR's order: "one" first, "other" last (French and Catalan add "many")
    tr = translator(lang)
    for count in (0, 1, 2, 5, 11, 21, 100):
        expected = (one if rule(count) == "one" else other).format(count=count)
        assert tr.ngettext("{count} second", "{count} seconds", count) == expected, (lang, count)


# The counts CLDR says "one" of.
ONES = {"fi": {1}, "nl": {1}, "ur": {1}, "pa": {0, 1}, "bn": {0, 1}, "fr": {0, 1}, "ca": {1}}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_which_counts_take_the_one_form(lang) -> None:
    rule = Locale.parse(lang).plural_form
    assert {n for n in range(0, 5) if rule(n) == "one"} == ONES[lang]


@pytest.mark.parametrize("lang", ["fi", "nl", "ur", "pa", "fr", "ca"])  # these distinguish the forms in this sentence
def test_a_sentence_takes_its_one_form_for_those_counts(lang) -> None:
    tr = translator(lang)
    singular, plural = "The match has {count} event; there is no version {wanted}.", \
        "The match has {count} events; there is no version {wanted}."
    for n in range(0, 5):
        said = tr.ngettext(singular, plural, n, wanted=9)
        one = tr.ngettext(singular, plural, 1, wanted=9).replace("1", str(n))
        assert (said == one) == (n in ONES[lang]), (lang, n)


def test_english_needs_no_catalogue() -> None:
    assert translator("en").ngettext("{count} second", "{count} seconds", 0) == "0 seconds"
    assert translator("en").ngettext("{count} second", "{count} seconds", 1) == "1 second"
