"""The browser table's catalogues: complete, in step with the table's own strings, and translated."""
from __future__ import annotations

import re
import string

import pytest
from babel.messages.pofile import read_po

from shared.i18n import DEFAULT, LANGUAGES, LOCALES, catalogue
from shared.i18n.extract import DOMAINS, template

TEMPLATE = DOMAINS["table"].template_path

TRANSLATED = [lang for lang in LANGUAGES if lang != DEFAULT]
# May read as in English: pure placeholders and symbols, and the words every language here
# writes the same way.
SAME_AS_ENGLISH = {
    "{me} {mine} – {theirs} {them} · first to {target}": set(),
    "{rank} of {suit}": {"fi", "nl"},  # only the order changes ("{suit} {rank}")
    "● Live": {"nl"},
}


def _ids(message) -> tuple[str, ...]:
    return message.id if isinstance(message.id, tuple) else (message.id,)


def _strings(message) -> tuple[str, ...]:
    return message.string if isinstance(message.string, tuple) else (message.string,)


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def _read(lang: str):
    with (LOCALES / lang / "LC_MESSAGES" / "table.po").open("rb") as source:
        return read_po(source, locale=lang, domain="table")


def test_the_template_is_what_the_table_says():
    with TEMPLATE.open("rb") as source:
        written = {_ids(m) for m in read_po(source) if m.id}
    assert written == {_ids(m) for m in template("table") if m.id}, "run: make messages"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_is_translated_with_the_same_placeholders(lang):
    with TEMPLATE.open("rb") as source:
        wanted = {_ids(m) for m in read_po(source) if m.id}
    read = _read(lang)
    assert {_ids(m) for m in read if m.id} == wanted
    for message in read:
        if not message.id:
            continue
        assert not message.fuzzy, message.id
        ids, texts = _ids(message), _strings(message)
        assert len(texts) == read.num_plurals if message.pluralizable else len(texts) == 1
        for text in texts:
            assert text.strip(), (lang, message.id)
            assert _fields(text) == _fields(ids[-1]), (lang, message.id, text)
            if text in ids:
                assert lang in SAME_AS_ENGLISH.get(ids[0], set()), (lang, message.id)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_browser_gets_every_string_and_the_plural_rule(lang):
    strings = catalogue(lang, "table")
    assert strings[""]["lang"] == lang
    assert re.fullmatch(r"[n!=<>()&|%\d ?:]+", strings[""]["plural"])
    assert len(strings) - 1 == sum(1 for m in _read(lang) if m.id)
    assert isinstance(strings["{count} second left to decide."], list)
