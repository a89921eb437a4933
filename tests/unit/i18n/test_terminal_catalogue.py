"""The terminal's catalogues: every string of terminal.pot, translated, with the same placeholders."""
from __future__ import annotations

import string

import pytest
from babel.messages.pofile import read_po

from shared.i18n import LANGUAGES, LOCALES
from shared.i18n.extract import template

TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]
SAME_AS_ENGLISH = {  # words that are the same in a language on purpose
    "nl": {"dealer {seat}", "Match {match}"}, "fi": set(), "pa": set(), "bn": set(), "ur": set(),
}


def _placeholders(text: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(text) if field}


def _read(path):
    with path.open("rb") as source:
        return read_po(source)


def test_the_template_holds_every_string_of_the_code() -> None:
    assert {m.id for m in _read(LOCALES / "terminal.pot") if m.id} == {m.id for m in template("terminal") if m.id}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_string_is_translated_with_the_same_placeholders(lang: str) -> None:
    catalogue = _read(LOCALES / lang / "LC_MESSAGES" / "terminal.po")
    for message in _read(LOCALES / "terminal.pot"):
        if not message.id:
            continue
        found = catalogue.get(message.id)
        assert found is not None and not found.fuzzy, message.id
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        forms = found.string if isinstance(found.string, tuple) else (found.string,)
        expected = set().union(*map(_placeholders, ids))
        for form in forms:
            assert form.strip(), (lang, message.id)
            assert _placeholders(form) | {"count"} >= expected and _placeholders(form) <= expected | {"count"}
            assert form not in ids or ids[0] in SAME_AS_ENGLISH[lang], (lang, form)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_plural_forms_are_cldrs(lang: str) -> None:
    from babel.messages.catalog import Catalog
    assert _read(LOCALES / lang / "LC_MESSAGES" / "terminal.po").plural_forms == Catalog(locale=lang).plural_forms
