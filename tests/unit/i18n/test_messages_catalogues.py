"""The server's answers (domain ``messages``): every sentence translated, placeholders kept, CLDR plurals."""
import re

import pytest
from babel import Locale
from babel.messages.pofile import read_po

from shared.i18n import LANGUAGES, LOCALES, translator
from shared.i18n.extract import DOMAINS, template

TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]
# Sentences that may stay as in English: nothing but placeholders.
SAME_AS_ENGLISH = {"{first} and {second}"}
TEMPLATE = DOMAINS["messages"].template_path


def _read(path, lang=None):
    with path.open("rb") as source:
        return read_po(source, locale=lang, domain="messages")


def _forms(value):
    return list(value) if isinstance(value, (tuple, list)) else [value]


def _placeholders(text):
    return sorted(set(re.findall(r"\{(\w*)\}", text)))


def test_the_template_is_what_the_code_says() -> None:
    """``make messages`` was run: the committed template holds exactly the code's sentences."""
    assert {m.id for m in template("messages") if m.id} == {m.id for m in _read(TEMPLATE) if m.id}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_sentence_is_translated_with_its_placeholders(lang) -> None:
    pot = {m.id for m in _read(TEMPLATE) if m.id}
    catalogue = _read(LOCALES / lang / "LC_MESSAGES" / "messages.po", lang)
    entries = {m.id: m for m in catalogue if m.id}
    assert set(entries) == pot
    for msgid, message in entries.items():
        assert not message.fuzzy, msgid
        english = _forms(msgid)
        forms = _forms(message.string)
        assert len(forms) == (catalogue.num_plurals if isinstance(msgid, tuple) else 1), msgid
        for form in forms:
            assert form.strip(), msgid
            assert _placeholders(form) == _placeholders(english[-1]), (lang, msgid, form)
            if form in english:
                assert english[0] in SAME_AS_ENGLISH, (lang, msgid)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_plural_forms_are_cldrs(lang) -> None:
    catalogue = _read(LOCALES / lang / "LC_MESSAGES" / "messages.po", lang)
    rule = Locale.parse(lang).plural_form
    seconds = {m.id: m.string for m in catalogue if m.id == ("{count} second", "{count} seconds")}
    one, other = seconds[("{count} second", "{count} seconds")]
    tr = translator(lang)
    for count in (0, 1, 2, 5, 11, 21, 100):
        expected = (one if rule(count) == "one" else other).format(count=count)
        assert tr.ngettext("{count} second", "{count} seconds", count) == expected, (lang, count)


@pytest.mark.parametrize(("lang", "ones"), [("fi", {1}), ("nl", {1}), ("ur", {1}), ("pa", {0, 1}), ("bn", {0, 1})])
def test_which_counts_take_the_one_form(lang, ones) -> None:
    rule = Locale.parse(lang).plural_form
    assert {n for n in range(0, 5) if rule(n) == "one"} == ones
    tr = translator(lang)
    singular, plural = "The match has {count} event; there is no version {wanted}.", \
        "The match has {count} events; there is no version {wanted}."
    for n in range(0, 5):
        said = tr.ngettext(singular, plural, n, wanted=9)
        one = tr.ngettext(singular, plural, 1, wanted=9).replace("1", str(n))
        if lang in ("fi", "nl", "ur", "pa"):  # these distinguish the forms in this sentence
            assert (said == one) == (n in ones), (lang, n)


def test_english_needs_no_catalogue() -> None:
    assert translator("en").ngettext("{count} second", "{count} seconds", 0) == "0 seconds"
    assert translator("en").ngettext("{count} second", "{count} seconds", 1) == "1 second"
