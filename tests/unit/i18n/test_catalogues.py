"""Every domain's catalogues (the server's answers, the browser table, the terminal): the
template is what the code says, and each language translates every message, not fuzzy, with
the same placeholders, as many plural forms as its CLDR rule, and that rule in its header."""
from __future__ import annotations

import re
import string

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from shared.i18n import LOCALES, TRANSLATED
from shared.i18n.extract import DOMAINS, Domain, template

CASES = [(domain, lang) for domain in DOMAINS for lang in TRANSLATED]

# Messages a language may write as in English: pure placeholders, and words it writes the same way.
SAME_AS_ENGLISH = {
    ("messages", "{first} and {second}"): set(TRANSLATED),
    ("messages", "{first}, {second}"): set(TRANSLATED) - {"ur"},  # Urdu writes its own comma (،)
    ("table", "{rank} of {suit}"): {"fi", "nl"},  # only the order changes ("{suit} {rank}")
    ("table", "● Live"): {"nl"},
    ("terminal", "dealer {seat}"): {"nl"},
    ("terminal", "Match {match}"): {"nl"},
    ("messages", "{count} minute"): {"fr"},  # the same word in French
    ("table", "expert"): {"fr", "ca", "nl"},  # the bot's top level: the same word
}


def _read(path, lang: str | None = None) -> Catalog:
    with path.open("rb") as source:
        return read_po(source, locale=lang)


def _ids(message) -> tuple[str, ...]:
    return message.id if isinstance(message.id, tuple) else (message.id,)


def _forms(message) -> tuple[str, ...]:
    return message.string if isinstance(message.string, tuple) else (message.string,)


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("domain", DOMAINS.values(), ids=list(DOMAINS))
def test_the_template_is_what_the_code_says(domain: Domain) -> None:
    written = {_ids(m) for m in _read(domain.template_path) if m.id}
    assert written == {_ids(m) for m in template(domain) if m.id}, "run: make messages"


@pytest.mark.parametrize(("domain", "lang"), CASES)
def test_every_message_is_translated_with_its_placeholders(domain: str, lang: str) -> None:
    wanted = {_ids(m) for m in _read(DOMAINS[domain].template_path) if m.id}
    catalogue = _read(DOMAINS[domain].po_path(lang), lang)
    assert {_ids(m) for m in catalogue if m.id} == wanted
    for message in catalogue:
        if not message.id:
            continue
        ids, forms = _ids(message), _forms(message)
        assert not message.fuzzy, message.id
        assert len(forms) == (catalogue.num_plurals if message.pluralizable else 1), message.id
        fields = set().union(*map(_fields, ids))
        in_words = {"count"} if message.pluralizable else set()  # a plural form may say "one second"
        for form in forms:
            assert form.strip(), message.id
            assert fields - in_words <= _fields(form) <= fields, (lang, message.id, form)
            if form in ids:
                assert lang in SAME_AS_ENGLISH.get((domain, ids[0]), set()), (lang, message.id)


@pytest.mark.parametrize(("domain", "lang"), CASES)
def test_the_plural_rule_is_cldrs(domain: str, lang: str) -> None:
    assert _read(DOMAINS[domain].po_path(lang), lang).plural_forms == Catalog(locale=lang).plural_forms


# Bengali addresses the player as আপনি, whose verb takes the polite ending (খেলেছেন, জিতলেন),
# never the familiar one (খেলেছে, জিতল) used of a third person.
_FAMILIAR_ENDINGS = ("ছে", "ছি", "ল", "লো", "বে")


@pytest.mark.parametrize("domain", DOMAINS)
def test_bengali_says_apni_with_the_polite_verb(domain: str) -> None:
    catalog = _read(LOCALES / "bn" / "LC_MESSAGES" / f"{domain}.po", "bn")
    familiar = []
    for message in catalog:
        for text in filter(None, _forms(message)):
            for clause in re.split(r"[:;।?,“”\"]", re.sub(r"[()]", " ", text)):
                words = clause.replace("!", "").split()
                if len(words) > 1 and words[0] == "আপনি" and words[-1].endswith(_FAMILIAR_ENDINGS):
                    familiar.append(text)
    assert familiar == []
